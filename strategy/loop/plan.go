package loop

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// placement is one planned order of one market.
type placement struct {
	market int
	order  strategy.Order
}

// plan runs every quotable market through model → planner → risk and shares
// the rate limiter's budget between them: the markets whose quotes are
// furthest from their targets go first, and a market that does not fit in
// what is left is planned again with the remainder (the planner then keeps
// its most valuable changes). Markets that are stale or stopped, or whose
// books are refused, get all their orders cancelled instead (a market on
// a new tick grid is planned: the planner replaces its orders off the
// grid); a market whose books could not be read this cycle (and are not
// stale) is held: its orders stay and it is not planned.
func (l *Loop) plan(now time.Time, rep *CycleReport) ([]*liveOrder, []placement) {
	vb := l.venue.Budget(now)
	rem := strategy.Budget{Places: vb.Orders, Cancels: vb.Cancels}

	totals := make([]risk.Totals, len(l.markets))
	sm := &l.sums
	sm.cur, sm.curIn = sm.cur[:0], sm.curIn[:0]
	for i, mr := range l.markets {
		totals[i] = mr.totals[totalsOpen].totals(riskFair(mr), mr.snap.Position, mr.open)
		var in risk.Totals
		if len(mr.inflight) > 0 {
			// Intents whose answer never came may be live: they count in
			// the totals (as the others' orders, even for their own market:
			// the planner cannot cancel what the exchange does not show).
			in = mr.totals[totalsInflight].totals(riskFair(mr), [2]decimal.Decimal{}, mr.inflight)
		}
		sm.cur, sm.curIn = append(sm.cur, totals[i], in), append(sm.curIn, len(mr.inflight) > 0)
	}
	sum := sm.total()

	var cancels []*liveOrder
	var active []int
	for i, mr := range l.markets {
		if mr.stopped != "" || mr.stale || mr.refusal() != "" {
			cancels = append(cancels, mr.open...)
			continue
		}
		if mr.unread {
			continue // its books were not read this cycle: hold its orders until they are (or go stale)
		}
		mr.st.ObserveFair(&mr.snap, mr.snapFair, mr.snapHasFair) // Observe, with the fair value refresh found
		res, err := mr.q.Pass(&mr.snap, mr.st, strategy.Unlimited(), sm.others(i))
		if err != nil {
			l.log.Warn().Str("market", mr.m.ConditionID).Err(err).Msg("planning failed")
			l.noteErr(i, "planning: "+err.Error())
			continue
		}
		mr.res, mr.need = res, needOf(&res)
		active = append(active, i)
	}
	rem.Cancels -= len(cancels)
	slices.SortStableFunc(active, func(a, b int) int { // neediest first
		switch na, nb := l.markets[a].need, l.markets[b].need; {
		case na > nb:
			return -1
		case nb > na:
			return 1
		}
		return 0
	})

	var places []placement
	grown := false // a market before this one added orders: the totals limits must see them
	for _, i := range active {
		mr := l.markets[i]
		res := mr.res
		if len(res.Cancels) > max(rem.Cancels, 0) || len(res.Places) > max(rem.Places, 0) || (grown && len(res.Places) > 0) {
			b := strategy.Budget{Places: max(rem.Places, 0), Cancels: max(rem.Cancels, 0)}
			var err error
			if res, err = mr.q.Pass(&mr.snap, mr.st, b, subTotals(sum, totals[i])); err != nil {
				continue
			}
		}
		if len(res.Places) > 0 {
			grown = true
			after := risk.MarketTotals(riskFair(mr), mr.snap.Position, planned(res))
			sum = addTotals(subTotals(sum, totals[i]), after)
			totals[i] = after
		}
		for _, c := range res.Cancels {
			if lo, ok := l.orders[c.ID]; ok {
				cancels = append(cancels, lo)
			}
		}
		for _, p := range res.Places {
			places = append(places, placement{market: i, order: p})
		}
		l.noteLimit(mr, &res)
		for _, r := range res.Rejected {
			rep.Rejected = append(rep.Rejected, r.Err.Reason.String())
			l.tally.Rejected++
			l.tally.RejectedBy[r.Err.Reason]++
			l.log.Debug().Str("market", short(mr.m.ConditionID)).Str("order", r.Err.Order.String()).Str("reason", r.Err.Reason.String()).
				Str("detail", r.Err.Detail).Msg("risk check refused an order")
		}
		rem.Cancels -= len(res.Cancels)
		rem.Places -= len(res.Places)
	}
	return cancels, places
}

// clearAfter is how many passes in a row a market must go unheld before
// the loop logs that its limits cleared: a market at its budget is held in
// one pass and fits in the next as its orders fill and move.
const clearAfter = 10

// noteLimit counts the quotes a limit held back in the market's final pass
// and logs each limit holding the market back once, when it starts to (not
// every cycle it holds, nor every time two limits take turns), and once
// that they cleared, after clearAfter passes without one.
func (l *Loop) noteLimit(mr *marketRun, res *strategy.PassResult) {
	for r, n := range res.Limited {
		l.tally.HeldBack[r] += n
	}
	mr.limit = res.Limit()
	if mr.limit == 0 {
		if mr.unheld++; mr.unheld == clearAfter && mr.limLogged != 0 {
			l.log.Info().Str("market", short(mr.m.ConditionID)).Msg("quotes no longer held back by a risk limit")
			mr.limLogged = 0
		}
		return
	}
	mr.unheld = 0
	for r, n := range res.Limited {
		bit := uint32(1) << r
		if n == 0 || mr.limLogged&bit != 0 || !marketLimit(risk.Reason(r)) {
			continue
		}
		mr.limLogged |= bit
		l.log.Info().Str("market", short(mr.m.ConditionID)).Str("limit", risk.Reason(r).String()).
			Msg("quotes held back by a risk limit: shrunk or left out to stay within it")
	}
}

// marketLimit reports whether r holds a market back (see
// strategy.PassResult.Limit), not single quotes for a moment.
func marketLimit(r risk.Reason) bool {
	return r != 0 && r != risk.ReasonCooldown && r != risk.ReasonSellExceedsPosition
}

// riskFair is the market's fair value for the risk totals (-1: none).
func riskFair(mr *marketRun) float64 {
	if mr.hasFair {
		return mr.fair
	}
	return -1
}

// planned is a market's open orders once a pass is carried out: the kept
// ones and the new ones.
func planned(r strategy.PassResult) []risk.Order {
	out := make([]risk.Order, 0, len(r.Kept)+len(r.Places))
	for _, o := range r.Kept {
		out = append(out, risk.Order{Outcome: int(o.Outcome), Side: o.Side, Price: o.Price, Size: o.Size})
	}
	for i := range r.Places {
		out = append(out, r.Places[i].Risk())
	}
	return out
}

// needOf scores how far a market's quotes are from their targets: the value
// of each order to place, and half a unit per cancel.
func needOf(r *strategy.PassResult) float64 {
	n := 0.5 * float64(len(r.Cancels))
	for i := range r.Places {
		n += r.Places[i].Value
	}
	return n
}

// sumMemo is the plan's sum of every market's totals, and each market's
// others (the sum less its own), kept while the totals it was made of are
// the very ones (the markets' totals memos hand back the same decimals; a
// decimal that is the same holds the same value).
//
// The sums are the decimals addTotals and subTotals give, to the exponent:
// a decimal sum or difference has the smaller exponent of its operands and
// is exact, so when every total is a whole number of exchange.Fixed base
// units (as risk.MarketTotals' are) they are summed in integers and the
// decimal made at the smallest exponent met.
type sumMemo struct {
	ok     bool
	in     []risk.Totals // per market its open orders' totals, then its intents' in flight (when inIn)
	inIn   []bool
	fx     []fixedTotals // in's, in base units
	sum    risk.Totals
	fsum   fixedTotals // sum's, when fixed
	fixed  bool
	other  []risk.Totals // others(i), when hasOther[i]
	hasOth []bool

	cur   []risk.Totals // this plan's, as in and inIn
	curIn []bool
}

// fixedTotals is a risk.Totals in base units, with its decimals' exponents.
type fixedTotals struct {
	ok                   bool
	shares, atRisk       int64
	sharesExp, atRiskExp int32
}

// sumLimit bounds the values summed in integers (10^9 shares), far from
// overflowing for any number of markets a loop quotes.
const sumLimit exchange.Fixed = 1_000_000_000 * exchange.FixedScale

func toFixedTotals(t risk.Totals) fixedTotals {
	s, okS := toBase(t.Shares)
	a, okA := toBase(t.AtRisk)
	return fixedTotals{ok: okS && okA, shares: s, atRisk: a, sharesExp: t.Shares.Exponent(), atRiskExp: t.AtRisk.Exponent()}
}

// toBase returns d in base units when it is a whole number of them within
// sumLimit, with an exponent of at least -FixedDecimals.
func toBase(d decimal.Decimal) (int64, bool) {
	if d.Exponent() < -exchange.FixedDecimals {
		return 0, false
	}
	f, err := exchange.FixedFromDecimal(d)
	if err != nil || f > sumLimit || f < -sumLimit {
		return 0, false
	}
	return int64(f), true
}

// fromBase returns the decimal of v base units at exponent exp (v is a
// multiple of 10^(exp+FixedDecimals)), as decimal arithmetic gives it.
func fromBase(v int64, exp int32) decimal.Decimal {
	for e := exp; e > -exchange.FixedDecimals; e-- {
		v /= 10
	}
	return decimal.New(v, exp)
}

// total returns the sum of cur's totals (in flight only when curIn), in
// market order, from the memo when cur holds the very totals it was made of.
func (m *sumMemo) total() risk.Totals {
	if m.ok && slices.Equal(m.in, m.cur) && slices.Equal(m.inIn, m.curIn) {
		return m.sum
	}
	fx := m.fx
	for j, t := range m.cur {
		switch {
		case j < len(fx) && j < len(m.in) && m.in[j] == t: // the very decimals
		case j < len(fx):
			fx[j] = toFixedTotals(t)
		default:
			fx = append(fx, toFixedTotals(t))
		}
	}
	m.fx = fx[:len(m.cur)]
	var sum risk.Totals
	var fs fixedTotals // the exponents start at the zero decimal's, 0
	fs.ok = true
	for i, in := range m.curIn {
		for j := 2 * i; j < 2*i+1 || (in && j == 2*i+1); j++ {
			f := m.fx[j]
			fs.ok = fs.ok && f.ok
			fs.shares, fs.atRisk = fs.shares+f.shares, fs.atRisk+f.atRisk
			fs.sharesExp, fs.atRiskExp = min(fs.sharesExp, f.sharesExp), min(fs.atRiskExp, f.atRiskExp)
			sum.Open += m.cur[j].Open
		}
	}
	if fs.ok {
		sum.Shares, sum.AtRisk = fromBase(fs.shares, fs.sharesExp), fromBase(fs.atRisk, fs.atRiskExp)
	} else {
		sum = risk.Totals{}
		for i, in := range m.curIn {
			sum = addTotals(sum, m.cur[2*i])
			if in {
				sum = addTotals(sum, m.cur[2*i+1])
			}
		}
	}
	m.ok, m.sum, m.fsum, m.fixed = true, sum, fs, fs.ok
	m.in, m.inIn = append(m.in[:0], m.cur...), append(m.inIn[:0], m.curIn...)
	m.other = append(m.other[:0], make([]risk.Totals, len(m.curIn))...)
	m.hasOth = append(m.hasOth[:0], make([]bool, len(m.curIn))...)
	return sum
}

// others returns the sum less market i's open orders' totals.
func (m *sumMemo) others(i int) risk.Totals {
	if !m.hasOth[i] {
		if f := m.fx[2*i]; m.fixed {
			// The sum's exponents are at most the market's: the difference keeps them.
			m.other[i] = risk.Totals{Shares: fromBase(m.fsum.shares-f.shares, m.fsum.sharesExp),
				AtRisk: fromBase(m.fsum.atRisk-f.atRisk, m.fsum.atRiskExp), Open: m.sum.Open - m.in[2*i].Open}
		} else {
			m.other[i] = subTotals(m.sum, m.in[2*i])
		}
		m.hasOth[i] = true
	}
	return m.other[i]
}

func addTotals(a, b risk.Totals) risk.Totals {
	return risk.Totals{Shares: a.Shares.Add(b.Shares), AtRisk: a.AtRisk.Add(b.AtRisk), Open: a.Open + b.Open}
}

func subTotals(a, b risk.Totals) risk.Totals {
	return risk.Totals{Shares: a.Shares.Sub(b.Shares), AtRisk: a.AtRisk.Sub(b.AtRisk), Open: a.Open - b.Open}
}

// sign signs the planned orders; an order that cannot be signed is dropped
// and reported. The signatures are made on up to SignWorkers goroutines
// when the signer is a ConcurrentSigner (signOrders); the intents keep the
// plan's order either way.
func (l *Loop) sign(places []placement, rep *CycleReport) []Intent {
	out := make([]signedOrder, len(places))
	l.signOrders(places, out)
	intents := make([]Intent, 0, len(places))
	for i := range places {
		p, so := &places[i], &out[i]
		mr := l.markets[p.market]
		if so.err != nil {
			l.log.Error().Str("market", mr.m.ConditionID).Err(so.err).Msg("cannot sign order")
			l.noteErr(p.market, "signing an order: "+so.err.Error())
			rep.Rejected = append(rep.Rejected, "sign")
			continue
		}
		intents = append(intents, Intent{Hash: so.hash, ConditionID: mr.m.ConditionID, TokenID: p.order.TokenID, Outcome: p.order.Outcome,
			Side: p.order.Side, Price: p.order.Price, Size: p.order.Size, OrderType: l.cfg.OrderType, Item: so.item})
	}
	return intents
}

// signedOrder is what signing one planned order gave.
type signedOrder struct {
	item exchange.PlacementItem
	hash string
	err  error
}

// signOrders signs places[i] into out[i]: one at a time on the calling
// goroutine, or, with a ConcurrentSigner, on up to its SignWorkers
// goroutines (each takes the next unsigned order; it reads its market and
// order and writes its own slot only).
func (l *Loop) signOrders(places []placement, out []signedOrder) {
	one := func(i int) {
		p := &places[i]
		so := &out[i]
		so.item, so.hash, so.err = l.signer.SignOrder(&l.markets[p.market].m, &p.order, l.cfg.OrderType)
	}
	workers := 1
	if cs, ok := l.signer.(ConcurrentSigner); ok {
		workers = min(cs.SignWorkers(), len(places))
	}
	if workers <= 1 {
		for i := range places {
			one(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(places); i = int(next.Add(1) - 1) {
				one(i)
			}
		})
	}
	wg.Wait()
}

package strategy

import (
	"math"
	"reflect"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
)

// QuoteKeyer is implemented by a model whose quotes depend on the
// snapshot's time and on the market state only through a few values it can
// name: AppendQuoteKey appends them to key. Two calls with snapshots that
// hold the same books, terms, position, locked shares, open orders and last
// fills, the same fair value, and the same key, get the same quotes
// whatever their Now and whatever else the state holds; and Quote changes
// nothing in the state. It returns false when it cannot say so for this
// snapshot (the quotes follow an estimator that moves with time, or Quote
// would write the state): the pass then runs.
type QuoteKeyer interface {
	AppendQuoteKey(key []uint64, s *Snapshot, st *MarketState) ([]uint64, bool)
}

// quoteKey is m's key, or false when m has none.
func quoteKey(key []uint64, m Model, s *Snapshot, st *MarketState) ([]uint64, bool) {
	k, ok := m.(QuoteKeyer)
	if !ok {
		return key, false
	}
	return k.AppendQuoteKey(key, s, st)
}

// passMemo is the inputs and result of a Quoter's last pass (Quoter.Memo).
type passMemo struct {
	ok        bool
	model     Model
	tolerance Tolerance
	checker   *risk.Checker
	budget    Budget
	others    risk.Totals
	slack     risk.Slack // how the result depended on others
	fair      uint64     // the fair value's bits
	hasFair   bool
	key       []uint64
	s         Snapshot // Open copied into open; Now and Trades unused
	open      []OpenOrder
	res       PassResult
}

// recall returns the last pass's result when this pass's inputs are the
// same (see Quoter.Memo), and whether the pass has a key (q.key) to be
// remembered by.
func (q *Quoter) recall(s *Snapshot, st *MarketState, b Budget, others risk.Totals, fair float64, hasFair bool) (res PassResult, hit, keyed bool) {
	m := &q.memo
	q.key = q.key[:0]
	if !q.Memo {
		return PassResult{}, false, false
	}
	if t := reflect.TypeOf(q.Model); t == nil || !t.Comparable() {
		return PassResult{}, false, false
	}
	var ok bool
	if q.key, ok = quoteKey(q.key, q.Model, s, st); !ok {
		return PassResult{}, false, false
	}
	q.key = q.cooldownKey(q.key, s)
	if !m.ok || m.model != q.Model || m.tolerance != q.Tolerance || m.checker != q.Checker || m.budget != b ||
		m.hasFair != hasFair || m.fair != math.Float64bits(fair) || !slices.Equal(m.key, q.key) ||
		!m.slack.Admits(m.others, others) ||
		!sameInputs(&m.s, m.open, s) {
		return PassResult{}, false, true
	}
	return m.res, true, true
}

// remember keeps a pass's inputs and result for recall; q.key holds its key.
func (q *Quoter) remember(s *Snapshot, b Budget, others risk.Totals, res PassResult, keyed bool) {
	m := &q.memo
	if !keyed {
		m.ok = false
		return
	}
	m.ok, m.model, m.tolerance, m.checker, m.budget, m.others, m.slack = true, q.Model, q.Tolerance, q.Checker, b, others, q.slack
	m.fair, m.hasFair = math.Float64bits(res.Fair), res.HasFair
	m.key = append(m.key[:0], q.key...)
	m.s = *s
	m.s.Open, m.s.Trades = nil, nil
	m.open = append(m.open[:0], s.Open...)
	m.res = res
}

// cooldownKey appends, per outcome and side, whether the risk checks' fill
// cool-down holds it at s.Now.
func (q *Quoter) cooldownKey(key []uint64, s *Snapshot) []uint64 {
	if q.Checker == nil {
		return key
	}
	var bits uint64
	for o := range s.LastFill {
		for sd := range s.LastFill[o] {
			if q.Checker.Cooling(s.LastFill[o][sd], s.Now) {
				bits |= 1 << (2*o + sd)
			}
		}
	}
	return append(key, bits)
}

// sameInputs reports whether s holds what a (with its open orders) held,
// but for its time and trades: the same books (the very level slices, see
// Quoter.Memo), terms, position, locked shares, open orders and last fills.
func sameInputs(a *Snapshot, open []OpenOrder, s *Snapshot) bool {
	if a.ConditionID != s.ConditionID || a.NegRisk != s.NegRisk || !a.EndDate.Equal(s.EndDate) || a.LastFill != s.LastFill ||
		!eqDec(a.Tick, s.Tick) || !eqDec(a.MinSize, s.MinSize) || !sameTerms(&a.Rewards, &s.Rewards) || len(open) != len(s.Open) {
		return false
	}
	for o := range a.Tokens {
		x, y := &a.Tokens[o], &s.Tokens[o]
		if x.TokenID != y.TokenID || !sameSlice(x.Bids, y.Bids) || !sameSlice(x.Asks, y.Asks) ||
			!eqDec(a.Position[o], s.Position[o]) || !eqDec(a.Locked[o], s.Locked[o]) {
			return false
		}
	}
	for i := range open {
		x, y := &open[i], &s.Open[i]
		if *x != *y && (x.ID != y.ID || x.Outcome != y.Outcome || x.Side != y.Side || !x.Price.Equal(y.Price) || !x.Size.Equal(y.Size)) {
			return false
		}
	}
	return true
}

func sameTerms(a, b *RewardTerms) bool {
	return eqDec(a.MinSize, b.MinSize) && eqDec(a.MaxSpread, b.MaxSpread) && eqDec(a.DailyRate, b.DailyRate)
}

// eqDec reports whether a and b are equal: at once when they are the very
// same decimal (a decimal is never written).
func eqDec(a, b decimal.Decimal) bool { return a == b || a.Equal(b) }

// sameSlice reports whether a and b are the same slice (empty ones are).
func sameSlice(a, b []exchange.PriceLevel) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

package loop

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

const maxTape = 64 // trades kept per market for the intensity estimator

// tapeParams is the cycle's tape read: the recent trades of the quoted
// markets (false when the tape is off or nothing is quoted).
func (l *Loop) tapeParams() (exchange.TradesParams, bool) {
	if l.cfg.TapeLimit <= 0 {
		return exchange.TradesParams{}, false
	}
	conds := l.bufs.conds[:0]
	for _, mr := range l.markets {
		if mr.stopped == "" {
			conds = append(conds, mr.m.ConditionID)
		}
	}
	l.bufs.conds = conds // the venue does not keep them (the next cycle writes them)
	if len(conds) == 0 {
		return exchange.TradesParams{}, false
	}
	limit, takerOnly := l.cfg.TapeLimit, true
	return exchange.TradesParams{Market: conds, Limit: &limit, TakerOnly: &takerOnly}, true
}

// takeTape appends the new trades of the tape read to each market's tape.
// Failures are logged: the tape only feeds the estimators.
func (l *Loop) takeTape(r *tapeRead) {
	if !r.done {
		return
	}
	if r.err != nil {
		l.log.Debug().Err(r.err).Msg("reading the tape failed")
		return
	}
	byCond, seen := l.tape.index(l.markets)
	trades := r.trades
	byTime := func(a, b exchange.Trade) int { return cmp.Compare(a.Timestamp, b.Timestamp) }
	if !timeSorted(trades) {
		trades = slices.Clone(trades) // the venue's slice is not the loop's to write
		slices.SortStableFunc(trades, byTime)
	}
	// Every quoted market has taken its trades up to seen (a second): the
	// trades stamped then or before are none's to take (oldest first, they
	// are a prefix).
	first := 0
	if seen != nil {
		first, _ = slices.BinarySearchFunc(trades, *seen, func(t exchange.Trade, at int64) int {
			if t.Timestamp <= at {
				return -1
			}
			return 1
		})
	}
	newest := map[int]time.Time{}
	for i := first; i < len(trades); i++ {
		l.tapeTrade(&trades[i], byCond, newest)
	}
	l.trimTapes(newest)
}

// timeSorted reports whether trades are oldest first
// (slices.IsSortedFunc by Timestamp, without copying each trade).
func timeSorted(trades []exchange.Trade) bool {
	for i := 1; i < len(trades); i++ {
		if trades[i].Timestamp < trades[i-1].Timestamp {
			return false
		}
	}
	return true
}

// tapeIndex is the quoted markets' index by condition id, kept while the
// markets and which of them are quoted stay the same.
type tapeIndex struct {
	runs   []*marketRun // l.markets when built
	quoted []bool       // which of them were quoted (not stopped)
	by     map[string]int
}

// index returns the quoted markets' index by condition id, and the second
// up to which every one of them has taken the tape's trades (nil when one
// has taken none yet).
func (x *tapeIndex) index(markets []*marketRun) (map[string]int, *int64) {
	same := x.by != nil && len(x.runs) == len(markets)
	for i := 0; same && i < len(markets); i++ {
		same = x.runs[i] == markets[i] && x.quoted[i] == (markets[i].stopped == "")
	}
	if !same {
		x.runs, x.quoted = append(x.runs[:0], markets...), x.quoted[:0]
		x.by = make(map[string]int, len(markets))
		for i, mr := range markets {
			x.quoted = append(x.quoted, mr.stopped == "")
			if mr.stopped == "" {
				x.by[mr.m.ConditionID] = i
			}
		}
	}
	var seen int64
	found := false
	for i, mr := range markets {
		if !x.quoted[i] {
			continue
		}
		if mr.lastTape.IsZero() {
			return x.by, nil
		}
		if s := mr.lastTape.Unix(); !found || s < seen {
			seen, found = s, true
		}
	}
	if !found {
		return x.by, nil
	}
	return x.by, &seen
}

// readOrders reads our orders back from the exchange, within the read
// budget (readBudget). First the orders there is evidence for: a trade in
// the history or the book says it may have traded (suspect), a cancel the
// exchange did not confirm, a placement whose answer never came (read once;
// when the exchange does not know it, again only once its grace is over),
// least recently read first, up to the evidence's share; those left wait
// for the next cycle. Then a slow round-robin of the others, least recently
// read first, up to the round robin's share. A grown matched size is a fill
// at the order's price. With all set it reads every tracked order, unbudgeted
// (reconciliation and shutdown).
func (l *Loop) readOrders(ctx context.Context, now time.Time, batch *Batch, rep *CycleReport, all bool) {
	l.markSuspects()
	first, rest := l.bufs.first[:0], l.bufs.rest[:0]
	defer func() { l.bufs.first, l.bufs.rest = clearList(first), clearList(rest) }()
	for _, lo := range l.orders {
		switch {
		case all || lo.suspect:
			first = append(first, lo)
		case lo.State == JIntent || lo.State == JSent:
			if !lo.unknown || l.graceOver(lo, now) {
				first = append(first, lo)
			} // else in flight: it may still arrive; nothing to read before its grace is over
		case l.cfg.History != nil && now.Sub(lo.lastRead) < historyRoundRobinAge:
			// the history shows its fills: the round robin is only the back-stop
		default:
			rest = append(rest, lo)
		}
	}
	todo := first
	if all {
		sortByAge(todo)
	} else {
		rr, ev, capped := l.readBudget(now)
		if capped {
			todo = oldest(todo, ev)
		} else {
			sortByAge(todo)
			rr = max(rr-len(todo), 0) // OrderReads bounds all reads but the evidence's, as it always has
		}
		todo = append(todo, oldest(rest, rr)...)
	}
	reads := make([]orderRead, len(todo))
	l.fanOut(ctx, len(todo), func(ctx context.Context, i int) { fetchOrder(ctx, l.venue, todo[i], &reads[i]) })
	for i, lo := range todo {
		if reads[i].done {
			l.takeOrder(lo, reads[i].eo, reads[i].err, now, batch, rep)
		}
	}
}

// clearList empties s for reuse, keeping no pointer.
func clearList(s []*liveOrder) []*liveOrder {
	clear(s)
	return s[:0]
}

// orderRead is what one order read brought back.
type orderRead struct {
	done bool
	eo   *exchange.Order
	err  error
}

// fetchOrder reads lo by its exchange id, and by its hash when the exchange
// does not know that id. It runs on fanOut's goroutines and only reads lo.
func fetchOrder(ctx context.Context, v Venue, lo *liveOrder, r *orderRead) {
	r.done = true
	r.eo, r.err = v.Order(ctx, orderID(lo))
	if r.err != nil && errors.Is(r.err, exchange.ErrNotFound) && lo.ExchangeID != "" && lo.ExchangeID != lo.Hash {
		r.eo, r.err = v.Order(ctx, lo.Hash)
	}
}

// takeOrder applies one order read.
func (l *Loop) takeOrder(lo *liveOrder, eo *exchange.Order, err error, now time.Time, batch *Batch, rep *CycleReport) {
	lo.lastRead = now
	if err != nil {
		if !errors.Is(err, exchange.ErrNotFound) {
			l.log.Debug().Str("order", short(lo.Hash)).Err(err).Msg("order read failed")
			l.noteErr(lo.market, "reading "+short(lo.Hash)+" failed: "+err.Error())
			return
		}
		switch {
		case lo.State == JIntent || lo.State == JSent:
			// Its answer never came: the order may still be on its way
			// (a slow network, a queue, the exchange's own delay). It
			// stays unknown, counted as possibly live, until its grace
			// is over; at startup too.
			lo.unknown, lo.suspect = true, false
			if l.graceOver(lo, now) {
				l.log.Info().Str("order", short(lo.Hash)).Msg("order never reached the exchange: marked failed")
				l.finalise(lo, Update{Hash: lo.Hash, State: JFailed, Err: "not found at the exchange"}, batch)
			}
		default:
			l.log.Warn().Str("order", short(lo.Hash)).Msg("live order unknown to the exchange: marked cancelled")
			l.finalise(lo, Update{Hash: lo.Hash, ExchangeID: lo.ExchangeID, State: JCanceled, SizeMatched: lo.SizeMatched, Err: "not found at the exchange"}, batch)
		}
		return
	}
	lo.suspect, lo.unknown = false, false
	if lo.ExchangeID == "" {
		lo.ExchangeID = eo.ID
	}
	grew := eo.SizeMatched.GreaterThan(lo.SizeMatched)
	if grew {
		l.fill(lo, eo.SizeMatched, now, batch, rep)
	}
	st := stateOf(eo.Status, lo.SizeMatched, lo.Size)
	u := Update{Hash: lo.Hash, ExchangeID: lo.ExchangeID, State: st, SizeMatched: lo.SizeMatched}
	if st.Final() {
		l.finalise(lo, u, batch)
		return
	}
	if st != lo.State || grew {
		lo.State = st
		batch.Updates = append(batch.Updates, u)
	}
}

// fill books the growth of an order's matched size as one fill at the
// order's price (our orders rest; a maker fills at its own price).
func (l *Loop) fill(lo *liveOrder, matched decimal.Decimal, now time.Time, batch *Batch, rep *CycleReport) {
	size := matched.Sub(lo.SizeMatched)
	held := l.pos[lo.TokenID]
	l.acct.fill(lo.TokenID, lo.Side, lo.Price, size, held)
	if lo.Side == exchange.Buy {
		l.pos[lo.TokenID] = held.Add(size)
	} else {
		l.pos[lo.TokenID] = held.Sub(size)
	}
	lo.SizeMatched = matched
	batch.Fills = append(batch.Fills, FillRecord{OrderHash: lo.Hash, ConditionID: lo.ConditionID, TokenID: lo.TokenID, Side: lo.Side,
		Price: lo.Price, Size: size, MatchedAfter: matched, Time: now})
	if lo.market >= 0 {
		side := 0
		if lo.Side == exchange.Sell {
			side = 1
		}
		l.markets[lo.market].lastFill[lo.Outcome][side] = now
	}
	l.tally.Fills++
	l.tally.Volume = l.tally.Volume.Add(size)
	l.tally.Notional = l.tally.Notional.Add(size.Mul(lo.Price))
	rep.Fills++
	rep.Filled = append(rep.Filled, Fill{ConditionID: lo.ConditionID, Outcome: lo.Outcome, Side: lo.Side, Price: lo.Price, Size: size, Time: now})
	l.log.Info().Str("market", short(lo.ConditionID)).Str("outcome", lo.Outcome.String()).Str("side", string(lo.Side)).
		Str("price", lo.Price.String()).Str("size", size.String()).Msg("fill")
}

// stateOf maps an exchange order status to a journal state.
func stateOf(status string, matched, size decimal.Decimal) JournalState {
	switch strings.ToUpper(status) {
	case exchange.StatusMatched:
		return JFilled
	case exchange.StatusCanceled:
		return JCanceled
	}
	if matched.IsPositive() {
		if matched.GreaterThanOrEqual(size) {
			return JFilled
		}
		return JPartiallyFilled
	}
	return JLive
}

// byAge orders tracked orders least recently read first, then by hash.
func byAge(a, b *liveOrder) int {
	if c := a.lastRead.Compare(b.lastRead); c != 0 {
		return c
	}
	return byHash(a, b)
}

// oldest returns the k first orders of s by byAge, in that order, reusing
// s: a selection through a bounded heap, so that the round robin's few
// reads a cycle do not sort every tracked order.
func oldest(s []*liveOrder, k int) []*liveOrder {
	if k >= len(s) {
		sortByAge(s)
		return s
	}
	if k <= 0 {
		return s[:0]
	}
	if keys, ok := ageKeys(s); ok {
		// The k first of the keys sorted side by side (byAge is a total
		// order: the same k, in the same order, as the heap's).
		sortAgeKeys(keys)
		for i := range keys {
			s[i] = keys[i].lo
		}
		return s[:k]
	}
	h := s[:k] // a max-heap by byAge: h[0] is the newest kept
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= k {
				return
			}
			if c+1 < k && byAge(h[c+1], h[c]) > 0 {
				c++
			}
			if byAge(h[c], h[i]) <= 0 {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, lo := range s[k:] {
		if byAge(lo, h[0]) < 0 {
			h[0] = lo
			down(0)
		}
	}
	sortByAge(h)
	return h
}

// ageKey is an order's place in byAge's order, for sortByAge.
type ageKey struct {
	sec  int64
	nsec int
	hk   uint64
	lo   *liveOrder
}

// sortByAge sorts s by byAge. When no time read has a monotonic clock
// reading (the times of a backtest's clock; time.Time.Compare then
// compares the times by their seconds and nanoseconds) it sorts the
// orders' keys side by side, not through the orders.
func sortByAge(s []*liveOrder) {
	keys, ok := ageKeys(s)
	if !ok {
		slices.SortFunc(s, byAge)
		return
	}
	sortAgeKeys(keys)
	for i := range keys {
		s[i] = keys[i].lo
	}
}

// ageKeys returns s's keys, or false when a time read has a monotonic
// clock reading (Compare reads it: the keys would not order as byAge).
func ageKeys(s []*liveOrder) ([]ageKey, bool) {
	keys := make([]ageKey, len(s))
	for i, lo := range s {
		t := lo.lastRead
		if t != t.Round(0) {
			return nil, false
		}
		keys[i] = ageKey{sec: t.Unix(), nsec: t.Nanosecond(), hk: lo.hashKey(), lo: lo}
	}
	return keys, true
}

// sortAgeKeys sorts keys as byAge sorts their orders.
func sortAgeKeys(keys []ageKey) {
	slices.SortFunc(keys, func(a, b ageKey) int {
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
			return c
		}
		if a.hk != b.hk {
			return cmp.Compare(a.hk, b.hk)
		}
		return strings.Compare(a.lo.Hash, b.lo.Hash)
	})
}

// markSuspects flags live orders that the book says may have traded: a bid
// at or above the best ask (or an ask at or below the best bid), or a level
// at our price holding less than our remaining size.
func (l *Loop) markSuspects() {
	for _, lo := range l.orders {
		if lo.market < 0 || lo.suspect {
			continue
		}
		mr := l.markets[lo.market]
		if !mr.hasBook[lo.Outcome] {
			continue
		}
		b := &mr.books[lo.Outcome]
		own, opp := b.Bids, b.Asks
		if lo.Side == exchange.Sell {
			own, opp = b.Asks, b.Bids
		}
		rem := remaining(lo)
		if m := &lo.clear; m.ok && sameLevels(m.own, own) && sameLevels(m.opp, opp) && m.price == lo.Price && m.rem == rem {
			lo.suspect = m.suspect // judged before on the very levels, price and size
			continue
		}
		lo.suspect = suspectOn(lo.Side, lo.Price, rem, own, opp)
		lo.clear = suspectMemo{ok: true, own: own, opp: opp, price: lo.Price, rem: rem, suspect: lo.suspect}
	}
}

// suspectOn reports whether an order of side sd at price with rem left may
// have traded, by its book's side own and the opposite side opp: the best
// opposite price crosses it, or the level at its price holds less than rem.
func suspectOn(sd exchange.Side, price, rem decimal.Decimal, own, opp []exchange.PriceLevel) bool {
	if len(opp) > 0 && ((sd == exchange.Buy && opp[0].Price.LessThanOrEqual(price)) ||
		(sd == exchange.Sell && opp[0].Price.GreaterThanOrEqual(price))) {
		return true
	}
	level := decimal.Zero
	for _, pl := range own {
		if pl.Price.Equal(price) {
			level = pl.Size
			break
		}
	}
	return level.LessThan(rem)
}

// suspectMemo is markSuspects' last judgement of an order, and what it
// judged on: its book's level slices (the loop never writes the levels of
// a book it took: a changed book comes in new slices), its price and
// remaining size (the same decimals hold the same values).
type suspectMemo struct {
	ok         bool
	own, opp   []exchange.PriceLevel
	price, rem decimal.Decimal
	suspect    bool
}

// sameLevels reports whether a and b are the same slice (empty ones are).
func sameLevels(a, b []exchange.PriceLevel) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// tapeTrade appends one trade of the tape to its market's tape when it is
// newer than the market has taken, and notes the market's newest time.
func (l *Loop) tapeTrade(t *exchange.Trade, byCond map[string]int, newest map[int]time.Time) {
	mi, ok := byCond[t.ConditionID]
	if !ok {
		return
	}
	mr := l.markets[mi]
	ts := time.Unix(t.Timestamp, 0)
	if !ts.After(mr.lastTape) {
		return
	}
	o := strategy.Outcome(t.OutcomeIndex)
	if idx := strings.LastIndexByte(t.Asset, ':'); idx >= 0 {
		if n, err := strconv.Atoi(t.Asset[idx+1:]); err == nil {
			o = strategy.Outcome(n)
		}
	}
	if !o.Valid() {
		return
	}
	mr.trades = append(mr.trades, strategy.TradePrint{Outcome: o, Side: t.Side, Price: t.Price.Decimal, Size: t.Size.Decimal, Time: ts})
	if ts.After(newest[mi]) {
		newest[mi] = ts
	}
}

// trimTapes moves each market's taken time to its newest trade and keeps
// its last maxTape trades.
func (l *Loop) trimTapes(newest map[int]time.Time) {
	for mi, ts := range newest {
		mr := l.markets[mi]
		mr.lastTape = ts
		if n := len(mr.trades); n > maxTape {
			mr.trades = append(mr.trades[:0], mr.trades[n-maxTape:]...)
		}
	}
}

package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// Cycle runs one cycle of DESIGN.md §3: read books and the tape, update
// fills, plan every market within the shared rate budget, cancel, sign and
// journal (only markets whose cancels were confirmed), place, record.
func (l *Loop) Cycle(ctx context.Context) error {
	start := l.clock.Now()
	l.applyPending()
	l.takeGuardSettled()
	rep := &CycleReport{Start: start}
	l.flowFed = 0
	err := l.cycle(ctx, rep)
	l.observeFlow(rep) // the fills found after planning (a cancel's read)
	end := l.clock.Now()
	rep.Duration = end.Sub(start)
	rep.Err = err
	if err == nil {
		l.view.completed(end)
	}
	l.finish(rep)
	return err
}

func (l *Loop) cycle(ctx context.Context, rep *CycleReport) error {
	if len(l.markets) == 0 || l.cfg.Params.Model == nil {
		return errNothingToQuote
	}
	now := l.clock.Now()
	batch := &Batch{Now: now}
	err := l.readInputs(ctx, now, batch, rep)
	if l.cfg.Kill != nil && ctx.Err() == nil {
		l.cfg.Kill.OnExchange(err == nil, l.clock.Now()) // when the answers came, not when the cycle began
	}
	if err != nil {
		return err
	}
	l.readOrders(ctx, now, batch, rep, false)
	l.takeSettlements(now, batch, rep)
	l.refresh(now)
	l.feedKill(now)
	l.observeFlow(rep)

	var cancels []*liveOrder
	var places []placement
	l.autoClear(now)
	switch {
	case l.tripped():
		if !l.halted {
			ok, trip := l.cfg.Kill.Tripped()
			_ = ok
			l.log.Error().Str("reason", trip.Reason.String()).Str("detail", trip.Detail).Msg("kill switch tripped: cancelling every order and stopping quotes")
			l.halted = true
		}
		cancels = l.withinBudget(l.allLive(), now) // every cycle, until none is left (a cancel may fail)
	default:
		if l.halted {
			l.log.Warn().Msg("kill switch reset: quoting resumes")
			l.halted = false
		}
		cancels, places = l.plan(now, rep)
	}
	cancels = append(cancels, l.takeRevivedCancels()...)

	// Cancels first: the risk checks counted the cancelled orders as gone,
	// so a market whose cancel is not confirmed places nothing this cycle.
	unconfirmed := l.sendCancels(ctx, cancels, batch, rep)
	if len(unconfirmed) > 0 {
		places = slices.DeleteFunc(places, func(p placement) bool { return unconfirmed[p.market] })
	}
	if len(places) > 0 && l.tripped() {
		places = nil // tripped while cancelling (by the guard, or by the cancels' errors): nothing more is placed
	}
	intents := l.sign(places, rep)
	if len(intents) > 0 {
		if err := l.journal.RecordIntents(intents, now); err != nil {
			_ = l.journal.Apply(batch)
			return fmt.Errorf("journal intents (no order was placed): %w", err)
		}
		for i := range intents {
			in := &intents[i]
			ref := l.byToken[in.TokenID]
			l.orders[in.Hash] = &liveOrder{JournaledOrder: JournaledOrder{Intent: *in, State: JIntent, CreatedAt: now}, market: ref.market}
		}
	}
	l.sendPlaces(ctx, intents, batch, rep)
	if !batch.Empty() {
		if err := l.journal.Apply(batch); err != nil {
			return fmt.Errorf("journal results: %w", err)
		}
	}
	return nil
}

func (l *Loop) tripped() bool {
	if l.cfg.Kill == nil {
		return false
	}
	t, _ := l.cfg.Kill.Tripped()
	return t
}

// bookRead is what one POST /books batch brought back; a batch that failed
// with not found or bad request is read again market by market (markets).
type bookRead struct {
	done    bool // the request was made (false: the context ended first)
	books   []exchange.OrderBook
	err     error
	markets []marketBooks
}

type marketBooks struct {
	market int
	books  []exchange.OrderBook
	err    error
}

// tapeRead is what the tape read brought back.
type tapeRead struct {
	done   bool
	trades []exchange.Trade
	err    error
}

// isolatable reports whether a failed book batch is read again market by
// market: the exchange refused it for what it asked (a closed or unknown
// market), not for being unreachable.
func isolatable(err error) bool {
	return errors.Is(err, exchange.ErrNotFound) || errors.Is(err, exchange.ErrBadRequest)
}

// readInputs reads every quoted token's book, in batches, the tape and the
// trade history. The requests do not depend on each other: they run
// concurrently when the configuration allows, and their answers are applied
// in a fixed order (books batch by batch, then the tape, then the history). A batch that fails leaves its
// markets' books as they were and holds those markets this cycle (they are
// not planned unless their books went stale); the cycle fails only when
// every batch failed.
func (l *Loop) readInputs(ctx context.Context, now time.Time, batch *Batch, rep *CycleReport) error {
	tokens := l.bufs.tokens[:0]
	for _, mr := range l.markets {
		mr.unread = false
		if mr.stopped == "" {
			tokens = append(tokens, mr.m.TokenIDs[strategy.Yes], mr.m.TokenIDs[strategy.No])
		}
	}
	chunks := l.bufs.chunks[:0]
	for i := 0; i < len(tokens); i += l.cfg.BooksBatch {
		chunks = append(chunks, tokens[i:min(i+l.cfg.BooksBatch, len(tokens))])
	}
	l.bufs.tokens, l.bufs.chunks = tokens, chunks // the venue does not keep them (the next cycle writes them)
	tp, wantTape := l.tapeParams()
	reads := make([]bookRead, len(chunks))
	var tape tapeRead
	var hist historyRead
	n, tapeAt, histAt := len(chunks), -1, -1
	if wantTape {
		tapeAt, n = n, n+1
	}
	if l.cfg.History != nil {
		histAt, n = n, n+1
	}
	l.fanOut(ctx, n, func(ctx context.Context, i int) {
		switch i {
		case tapeAt:
			tape.trades, tape.err = l.venue.Trades(ctx, tp)
			tape.done = true
		case histAt:
			l.fetchHistory(ctx, &hist)
		default:
			l.fetchBooks(ctx, chunks[i], &reads[i])
		}
	})
	if err := l.takeBooks(ctx, chunks, reads, now, rep); err != nil {
		return err
	}
	if wantTape {
		l.takeTape(&tape)
	}
	if l.cfg.History != nil {
		l.takeHistory(ctx, &hist, now, batch, rep)
	}
	return nil
}

// fetchBooks reads one batch; a batch refused for a closed or unknown market
// is read again market by market, so that one closed market cannot blind
// the loop to the others. It runs on fanOut's goroutines: it reads only
// what does not change during a cycle's reads (byToken, token ids).
func (l *Loop) fetchBooks(ctx context.Context, tokens []string, r *bookRead) {
	r.done = true
	r.books, r.err = l.venue.Books(ctx, tokens)
	if r.err == nil || !isolatable(r.err) {
		return
	}
	seen := map[int]bool{}
	for _, tok := range tokens {
		ref, ok := l.byToken[tok]
		if !ok || seen[ref.market] {
			continue
		}
		seen[ref.market] = true
		mb := marketBooks{market: ref.market}
		mb.books, mb.err = l.venue.Books(ctx, l.markets[ref.market].m.TokenIDs[:])
		r.markets = append(r.markets, mb)
	}
}

// takeBooks applies the batches' answers in batch order (each book checked
// by takeBook), marks the markets whose books are stale, and shows the
// guard the books it judged.
func (l *Loop) takeBooks(ctx context.Context, chunks [][]string, reads []bookRead, now time.Time, rep *CycleReport) error {
	ok := 0
	var failed []error
	held := map[int]error{} // markets held this cycle, with why (noted once the cycle goes on)
	hold := func(tokens []string, err error) {
		for _, tok := range tokens {
			if ref, found := l.byToken[tok]; found {
				l.markets[ref.market].unread = true
				if held[ref.market] == nil {
					held[ref.market] = err
				}
			}
		}
	}
	for i := range reads {
		r := &reads[i]
		switch {
		case !r.done:
			err := ctx.Err()
			if err == nil {
				err = errors.New("not read")
			}
			failed = append(failed, err)
			hold(chunks[i], err)
		case r.err == nil:
			ok++
			for j := range r.books {
				l.takeBook(&r.books[j], now, rep)
			}
		case isolatable(r.err):
			ok++
			for _, mb := range r.markets {
				mr := l.markets[mb.market]
				if mb.err != nil {
					if isolatable(mb.err) {
						mr.stopped = "book unavailable: " + mb.err.Error()
						l.noteErr(mb.market, mr.stopped)
						l.log.Warn().Str("market", mr.m.ConditionID).Err(mb.err).Msg("market closed or unknown: cancelling its orders and no longer quoting it")
					} else {
						mr.unread = true
						held[mb.market] = mb.err
					}
					continue
				}
				for j := range mb.books {
					l.takeBook(&mb.books[j], now, rep)
				}
			}
		default:
			failed = append(failed, r.err)
			hold(chunks[i], r.err)
		}
	}
	if ok == 0 && len(failed) > 0 {
		return fmt.Errorf("read books: %w", failed[0])
	}
	for _, err := range failed {
		l.log.Warn().Err(err).Msg("reading a batch of books failed: its markets keep their orders and are not re-quoted this cycle")
	}
	for i := range l.markets {
		if err := held[i]; err != nil {
			l.noteErr(i, "reading its books failed: "+err.Error())
		}
	}
	times := make([]time.Time, len(l.markets))
	for i, mr := range l.markets {
		mr.stale = false
		if mr.stopped != "" {
			continue
		}
		for o := range mr.books {
			if !mr.hasBook[o] || (l.cfg.MaxBookAge > 0 && now.Sub(mr.books[o].Updated) > l.cfg.MaxBookAge) {
				mr.stale = true
			}
			if mr.hasBook[o] && (times[i].IsZero() || mr.books[o].Updated.Before(times[i])) {
				times[i] = mr.books[o].Updated
			}
		}
	}
	l.view.judge(times, now)
	return nil
}

// takeBook uses one book read from the venue: checked (Config.CheckBook),
// then normalized best-first and stored, noting a new tick or minimum size.
func (l *Loop) takeBook(b *exchange.OrderBook, now time.Time, rep *CycleReport) {
	ref, ok := l.byToken[b.AssetID]
	if !ok {
		return
	}
	mr := l.markets[ref.market]
	tb := &mr.books[ref.outcome]
	terms := &mr.terms[ref.outcome]
	if mr.hasBook[ref.outcome] && mr.refused[ref.outcome] == "" && equalLevels(b.Bids, tb.Bids) && equalLevels(b.Asks, tb.Asks) &&
		b.TickSize.Equal(terms[0]) && b.MinOrderSize.Equal(terms[1]) {
		// The levels taken before (the very slices, from a venue that
		// knows the book did not change, as the replay; or the same
		// levels in the same order): checked and sorted already. The
		// loop keeps its slices, so the pass's memo sees the same book.
		tb.Updated = l.stamps.parse(b.Timestamp, now)
	} else {
		if l.cfg.CheckBook != nil {
			if err := l.cfg.CheckBook(b); err != nil {
				l.refuseBook(mr, ref.outcome, err, rep)
				return
			}
			l.acceptBook(mr, ref.outcome)
		}
		b.Normalize()
		*terms = [2]decimal.Decimal{b.TickSize, b.MinOrderSize}
		*tb = strategy.TokenBook{TokenID: b.AssetID, Bids: b.Bids, Asks: b.Asks, Updated: l.stamps.parse(b.Timestamp, now)}
	}
	mr.hasBook[ref.outcome] = true
	l.takeTick(mr, ref.outcome, b.TickSize)
	if b.MinOrderSize.IsPositive() {
		mr.m.MinSize = b.MinOrderSize
	}
}

// equalLevels reports whether a holds the levels of b, in the same order
// (the very slice, or equal prices and sizes): a book whose levels are the
// ones the loop took before was checked and sorted then.
func equalLevels(a, b []exchange.PriceLevel) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] && (!a[i].Price.Equal(b[i].Price) || !a[i].Size.Equal(b[i].Size)) { // the very decimals are equal
			return false
		}
	}
	return true
}

// MsgTickChanged is the message of the one log line per tick change of a
// market.
const MsgTickChanged = "tick size changed: quoting on the new grid; orders off it are replaced"

// takeTick takes the tick size an outcome's book reports. A market has one
// tick, and a tick_size_change comes per token: after a change of one
// token the other's book may go on reporting the old tick. So a change is
// a token reporting another tick than it did before (before its first
// book: the market's configured tick), and it sets the market's tick; a
// token reporting what it always did changes nothing, whatever the other
// reports. The planner replaces the orders off the new grid in this
// cycle's pass.
func (l *Loop) takeTick(mr *marketRun, o strategy.Outcome, tick decimal.Decimal) {
	if !tick.IsPositive() {
		return
	}
	prev := mr.ticks[o]
	mr.ticks[o] = tick
	if tick.Equal(prev) || tick.Equal(mr.m.Tick) {
		return
	}
	l.log.Warn().Str("market", mr.m.ConditionID).Str("token", mr.m.TokenIDs[o]).Str("old_tick", mr.m.Tick.String()).
		Str("new_tick", tick.String()).Msg(MsgTickChanged)
	mr.m.Tick = tick
}

// MsgBookRefused is the message of the one log line per market and reason
// of a refused book.
const MsgBookRefused = "book refused: the market is not quoted (its orders are cancelled) while the exchange's data for it is invalid; logged once per market and reason"

// refuseBook marks a market's outcome as refused for err (from
// Config.CheckBook): the market is not quoted until its books pass. One
// line is logged per market and reason, however long the garbage lasts.
func (l *Loop) refuseBook(mr *marketRun, o strategy.Outcome, err error, rep *CycleReport) {
	reason := "invalid"
	var ve *exchange.ValidationError
	if errors.As(err, &ve) {
		reason = ve.Reason
	}
	rep.BooksRefused = append(rep.BooksRefused, reason)
	mr.refused[o] = err.Error()
	if mr.logged == nil {
		mr.logged = map[string]bool{}
	}
	if mr.logged[reason] {
		l.log.Debug().Str("market", mr.m.ConditionID).Str("reason", reason).Err(err).Msg("book refused again")
		return
	}
	mr.logged[reason] = true
	l.log.Warn().Str("market", mr.m.ConditionID).Str("token", mr.m.TokenIDs[o]).Str("reason", reason).Err(err).Msg(MsgBookRefused)
}

// acceptBook clears a refusal of a market's outcome once its book passes.
func (l *Loop) acceptBook(mr *marketRun, o strategy.Outcome) {
	if mr.refused[o] == "" {
		return
	}
	mr.refused[o] = ""
	if mr.refusal() != "" {
		return
	}
	ev := l.log.Debug()
	if !mr.recovered {
		mr.recovered = true
		ev = l.log.Info()
	}
	ev.Str("market", mr.m.ConditionID).Msg("the market's books are valid again: quoting resumes")
}

// parseBookTime reads a book's timestamp (Unix milliseconds or seconds, or
// ISO 8601: exchange.ParseWireTime); an unreadable one counts as now.
func parseBookTime(s string, now time.Time) time.Time {
	if t, ok := exchange.ParseWireTime(s); ok && t.Unix() > 0 {
		return t
	}
	return now
}

// stampMemo is the last book timestamp parsed (parseBookTime) that was
// readable: the books of one read share theirs.
type stampMemo struct {
	ok bool
	s  string
	t  time.Time
}

// parse returns parseBookTime(s, now).
func (m *stampMemo) parse(s string, now time.Time) time.Time {
	if m.ok && m.s == s {
		return m.t
	}
	if t, ok := exchange.ParseWireTime(s); ok && t.Unix() > 0 {
		*m = stampMemo{ok: true, s: s, t: t}
		return t
	}
	return now
}

// feedKill gives the kill switch this cycle's PnL and the freshest book age
// (the feed as a whole is stale only when every book is).
func (l *Loop) feedKill(now time.Time) {
	mark := l.markFunc()
	l.acct.init(l.pos, mark)
	l.tally.MarkedPnL, l.tally.RealizedPnL = l.marks.pnl(l, mark)
	if l.cfg.Kill == nil {
		return
	}
	l.cfg.Kill.OnPnL(l.tally.MarkedPnL, now)
	var freshest time.Duration
	found := false
	for _, mr := range l.markets {
		if mr.stopped != "" {
			continue
		}
		for o := range mr.books {
			if mr.hasBook[o] {
				if age := now.Sub(mr.books[o].Updated); !found || age < freshest {
					freshest, found = age, true
				}
			}
		}
	}
	if !found {
		return
	}
	if freshest >= 0 {
		l.cfg.Kill.OnBookAge("all markets", freshest, now)
	}
	if freshest < 0 {
		// A book stamped in our future: the exchange's clock is ahead of ours.
		l.cfg.Kill.OnClockSkew(-freshest, now)
	}
}

// markFunc values a token at the fair value of its market (1 − fair for NO).
func (l *Loop) markFunc() func(string) (decimal.Decimal, bool) {
	return func(tok string) (decimal.Decimal, bool) {
		f, ok := l.markOf(tok)
		if !ok {
			return decimal.Zero, false
		}
		return decimal.NewFromFloat(f).Round(6), true
	}
}

// markOf is the fair value markFunc rounds: its market's (1 − fair for NO).
func (l *Loop) markOf(tok string) (float64, bool) {
	ref, ok := l.byToken[tok]
	if !ok {
		return 0, false
	}
	mr := l.markets[ref.market]
	f, ok := mr.fair, mr.hasFair
	if !ok {
		return 0, false
	}
	if ref.outcome == strategy.No {
		f = 1 - f
	}
	return f, true
}

// refresh rebuilds every market's snapshot (books, positions, our open
// orders) and fair value for this cycle.
func (l *Loop) refresh(now time.Time) {
	byMarket, inflight := l.openByMarket()
	unsettled := l.unsettledBuys()
	for i, mr := range l.markets {
		open := byMarket[i]
		mr.open, mr.inflight = open, inflight[i]
		s := &mr.snap
		*s = strategy.Snapshot{
			ConditionID: mr.m.ConditionID, Tokens: mr.books, Tick: mr.m.Tick, MinSize: mr.m.MinSize,
			NegRisk: mr.m.NegRisk, Rewards: mr.m.Rewards, EndDate: mr.m.EndDate, Trades: mr.trades,
			Position: [2]decimal.Decimal{l.pos[mr.m.TokenIDs[strategy.Yes]], l.pos[mr.m.TokenIDs[strategy.No]]},
			LastFill: mr.lastFill, Now: now, Open: s.Open[:0], Locked: l.locked(mr, inflight[i], unsettled),
		}
		for _, lo := range open {
			s.Open = append(s.Open, strategy.OpenOrder{ID: lo.Hash, Outcome: lo.Outcome, Side: lo.Side, Price: lo.Price, Size: remaining(lo)})
		}
		f, ok := mr.fairMemo.FairValue(s)
		mr.snapFair, mr.snapHasFair = f, ok
		if ok {
			mr.fair, mr.hasFair = f, true
		}
		if !l.cfg.SkipStatus { // the estimate is only shown in the status
			mr.observeRewards(now)
		}
	}
}

// openByMarket lists each market's open orders (Sent ones too: they may be
// live), and apart its intents in flight (journaled before this cycle, their
// answer never came: a restart's), each sorted by hash, in one pass over the
// tracked orders. The planner sees the open ones; risk counts both.
//
// The lists are the loop's, reused by the next cycle's call: a market's
// open and inflight hold them for this cycle only.
func (l *Loop) openByMarket() (open, inflight [][]*liveOrder) {
	open, inflight = reuseLists(l.bufs.open, len(l.markets)), reuseLists(l.bufs.inflight, len(l.markets))
	l.bufs.open, l.bufs.inflight = open, inflight
	for _, lo := range l.orders {
		switch {
		case lo.market < 0 || lo.State.Final():
		case lo.State == JIntent:
			inflight[lo.market] = append(inflight[lo.market], lo)
		default:
			open[lo.market] = append(open[lo.market], lo)
		}
	}
	for _, o := range open {
		slices.SortFunc(o, byHash)
	}
	for _, o := range inflight {
		slices.SortFunc(o, byHash)
	}
	return open, inflight
}

// reuseLists returns n empty lists, reusing lists' own.
func reuseLists(lists [][]*liveOrder, n int) [][]*liveOrder {
	if cap(lists) < n {
		lists = append(lists[:cap(lists)], make([][]*liveOrder, n-cap(lists))...)
	}
	lists = lists[:n]
	for i := range lists {
		clear(lists[i][:cap(lists[i])]) // no pointer kept past its cycle
		lists[i] = lists[i][:0]
	}
	return lists
}

func (l *Loop) allLive() []*liveOrder {
	var out []*liveOrder
	for _, lo := range l.orders {
		if !lo.State.Final() && lo.State != JIntent {
			out = append(out, lo)
		}
	}
	slices.SortFunc(out, byHash)
	return out
}

// byHash orders tracked orders by hash (slices.SortFunc: no reflection, no
// allocation, unlike sort.Slice): by the hashes' first eight bytes as one
// number first (hashKey), which orders them as their bytes do, then, when
// those are the same, by the whole hashes.
func byHash(a, b *liveOrder) int {
	if ka, kb := a.hashKey(), b.hashKey(); ka != kb {
		return cmp.Compare(ka, kb)
	}
	return strings.Compare(a.Hash, b.Hash)
}

// hashKey returns the first eight bytes of lo's hash as a big-endian number
// (zeros past its end): two hashes whose keys differ compare as their
// keys do.
func (lo *liveOrder) hashKey() uint64 {
	if !lo.hk.ok || lo.hk.of != lo.Hash {
		var k uint64
		for i := range 8 {
			k <<= 8
			if i < len(lo.Hash) {
				k |= uint64(lo.Hash[i])
			}
		}
		lo.hk = hashKeyMemo{ok: true, of: lo.Hash, k: k}
	}
	return lo.hk.k
}

// hashKeyMemo is an order's hashKey, with the hash it was made of.
type hashKeyMemo struct {
	ok bool
	of string
	k  uint64
}

func remaining(lo *liveOrder) decimal.Decimal {
	m := &lo.rem
	if m.ok && m.size == lo.Size && m.matched == lo.SizeMatched {
		return m.r // the very decimals of the last call (they are immutable)
	}
	r := lo.Size.Sub(lo.SizeMatched)
	if r.IsNegative() {
		r = decimal.Zero
	}
	*m = remMemo{ok: true, size: lo.Size, matched: lo.SizeMatched, r: r}
	return r
}

// remMemo is an order's remaining size, from the Size and SizeMatched it
// was computed from.
type remMemo struct {
	ok               bool
	size, matched, r decimal.Decimal
}

// riskOpen converts open orders for the risk totals.
func riskOpen(open []*liveOrder) []risk.Order {
	out := make([]risk.Order, 0, len(open))
	for _, lo := range open {
		out = append(out, risk.Order{Outcome: int(lo.Outcome), Side: lo.Side, Price: lo.Price, Size: remaining(lo)})
	}
	return out
}

package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// TradeHistory is the account's own trade history: the fills of its orders,
// each naming the order it filled. The daemon's reads GET /builder/trades
// for the account's maker address (cmd/mmbot, builderHistory). It is
// optional (Config.History): without it the loop finds fills by reading its
// orders back, round-robin, within Config.OrderReadShare.
type TradeHistory interface {
	// OwnTrades returns the account's trades matched after since (zero:
	// as far back as the source keeps, within its own bound), in any order,
	// in one or a few requests. A trade may come twice (its id says so).
	OwnTrades(ctx context.Context, since time.Time) ([]OwnTrade, error)
}

// OwnTrade is one fill of one of the account's orders.
type OwnTrade struct {
	ID      string          // the trade's id
	OrderID string          // the account's order it filled (its hash)
	Size    decimal.Decimal // shares of that order the trade matched
	Time    time.Time       // when it matched
	// Status is the trade's settlement status (exchange.TradeMatched …
	// exchange.TradeFailed); empty from a source without settlement, whose
	// trades are final as matched (settle.go).
	Status string
}

// historyOverlap is how far before the newest trade taken the next history
// read starts again: a trade published late (after a newer one was read)
// is still found. Trades taken twice are recognised by trade and order id.
const historyOverlap = 10 * time.Second

// historyRoundRobinAge is, with a trade history, how long after its last
// read an order without evidence waits for its round-robin read: the
// history names the orders that fill, the round robin only catches what it
// might miss (a cancel by the exchange, a trade published late).
const historyRoundRobinAge = 10 * time.Second

// DefaultOrderReadShare is Config.OrderReadShare's default.
const DefaultOrderReadShare = 0.1

// ReadBudgeter is an optional part of a Venue: how many reads the
// order-book API's shared cap (which orders, cancels, book reads and order
// reads all count against) can take now. The HTTP client implements it;
// a venue without it (paper, replay) puts no cap on order reads.
type ReadBudgeter interface {
	ReadBudget(now time.Time) int
}

// OrderLookup is an optional part of a Journal: one journaled order by hash,
// final ones too, so that a trade naming an order the journal gave up on
// (failed) can bring it back. Without it such a trade is treated as naming
// an order the journal does not know.
type OrderLookup interface {
	Order(hash string) (JournaledOrder, bool, error)
}

// TradeCursorReader is an optional part of a Journal: the trade-history
// cursor the last Batch.TradeCursor recorded (zero when none), so that a
// restart resumes the history where the last process left it.
type TradeCursorReader interface {
	TradeCursor() (time.Time, error)
}

// histState is the loop's place in the trade history.
type histState struct {
	since  time.Time            // the newest trade time taken: the cursor
	seen   map[string]time.Time // trade id + order id of the trades taken, kept for the overlap
	looked map[string]bool      // untracked order ids already settled (revived, or handled as unknown)
	cancel []*liveOrder         // revived orders to cancel this cycle (state.unknown_orders = cancel)
}

// startHistory resumes the trade history at Start: from the journal's
// cursor (TradeCursorReader), it reads what happened while the loop was
// down and settles it as a cycle would (takeHistory): orders a trade names
// are read, revived or handled as unknown.
func (l *Loop) startHistory(ctx context.Context, now time.Time, batch *Batch, rep *CycleReport) error {
	if l.cfg.History == nil {
		return nil
	}
	if cr, ok := l.journal.(TradeCursorReader); ok {
		since, err := cr.TradeCursor()
		if err != nil {
			return fmt.Errorf("read the trade cursor: %w", err)
		}
		l.hist.since = since
	}
	var r historyRead
	l.fetchHistory(ctx, &r)
	l.takeHistory(ctx, &r, now, batch, rep)
	return ctx.Err()
}

// historyRead is what one history read brought back.
type historyRead struct {
	done   bool
	trades []OwnTrade
	err    error
	reread []string // trade ids read again by id (settle.go)
}

// fetchHistory reads the trades since the cursor less the overlap. It runs
// on fanOut's goroutines and reads only the cursor, which no other part of
// the cycle's reads changes.
func (l *Loop) fetchHistory(ctx context.Context, r *historyRead) {
	since := l.hist.since
	if !since.IsZero() {
		since = since.Add(-historyOverlap)
	}
	r.trades, r.err = l.cfg.History.OwnTrades(ctx, since)
	r.done = true
	if r.err != nil {
		return
	}
	if ids := l.rereadIDs(l.clock.Now(), since); len(ids) > 0 {
		more, err := l.cfg.History.(TradeRereader).TradesByID(ctx, ids)
		if err != nil {
			l.log.Debug().Err(err).Msg("reading trades not yet settled by id failed; trying again next cycle")
			return
		}
		r.trades, r.reread = append(r.trades, more...), ids
	}
}

// takeHistory applies a history read: each new trade of a tracked order
// makes it a suspect (read first this cycle); a trade naming an order the
// loop does not track brings it back (bringBack). The cursor moves to the
// newest trade taken and is journaled with the batch.
func (l *Loop) takeHistory(ctx context.Context, r *historyRead, now time.Time, batch *Batch, rep *CycleReport) {
	if !r.done {
		return
	}
	if r.err != nil {
		l.log.Warn().Err(r.err).Msg("reading the trade history failed; orders are read back round-robin meanwhile")
		return
	}
	h := &l.hist
	if h.seen == nil {
		h.seen, h.looked = map[string]time.Time{}, map[string]bool{}
	}
	l.noteReread(r.reread, now)
	trades := r.trades
	sort.SliceStable(trades, func(i, j int) bool { return trades[i].Time.Before(trades[j].Time) })
	byID := l.trackedByID()
	newest := h.since
	var untracked []string
	named := map[string]bool{}
	for i := range trades {
		t := &trades[i]
		if t.OrderID == "" {
			continue
		}
		key := t.ID + "/" + strings.ToLower(t.OrderID) + "/" + strings.ToUpper(t.Status)
		if _, dup := h.seen[key]; dup {
			continue
		}
		h.seen[key] = t.Time
		l.queueSettlement(*t)
		if t.Time.After(newest) && !slices.Contains(r.reread, t.ID) {
			newest = t.Time
		}
		if lo := byID[strings.ToLower(t.OrderID)]; lo != nil {
			lo.suspect = true
			continue
		}
		if id := strings.ToLower(t.OrderID); !named[id] && !h.looked[id] {
			named[id] = true
			untracked = append(untracked, t.OrderID)
		}
	}
	for k, at := range h.seen {
		if at.Before(newest.Add(-2 * historyOverlap)) {
			delete(h.seen, k)
		}
	}
	for _, id := range untracked {
		if ctx.Err() != nil {
			return // not settled: the cursor stays, the next read finds them again
		}
		l.bringBack(ctx, id, now, batch, rep)
	}
	if newest.After(h.since) {
		h.since = newest
		batch.TradeCursor = newest
	}
}

// trackedByID maps the lower-cased hash and exchange id of every tracked
// order to it.
func (l *Loop) trackedByID() map[string]*liveOrder {
	out := make(map[string]*liveOrder, 2*len(l.orders))
	for h, lo := range l.orders {
		out[strings.ToLower(h)] = lo
		if lo.ExchangeID != "" {
			out[strings.ToLower(lo.ExchangeID)] = lo
		}
	}
	return out
}

// bringBack settles an order a trade named that the loop does not track.
// The journal gave it up (failed: its placement arrived after it was
// declared lost): it is revived (failed → sent), read, its fills booked and
// its state corrected; when it is still live, state.unknown_orders says
// what follows (cancel: cancelled this cycle; adopt or report: managed as
// the loop's own, since the journal now knows it as live). The journal does
// not know it at all: it is handled as an unknown order (applyUnknown).
// An order the journal holds in another final state needs nothing.
func (l *Loop) bringBack(ctx context.Context, id string, now time.Time, batch *Batch, rep *CycleReport) {
	var jo JournaledOrder
	found := false
	if lk, ok := l.journal.(OrderLookup); ok {
		var err error
		if jo, found, err = lk.Order(id); err != nil {
			l.log.Warn().Str("order", short(id)).Err(err).Msg("looking up an order a trade names failed")
			return
		}
	}
	if found && jo.State != JFailed {
		l.hist.looked[strings.ToLower(id)] = true
		return
	}
	eo, err := l.venue.Order(ctx, id)
	if err != nil {
		if !errors.Is(err, exchange.ErrNotFound) {
			l.log.Debug().Str("order", short(id)).Err(err).Msg("reading an order a trade names failed; trying again at the next history read")
			l.unsee(id)
		}
		return
	}
	l.hist.looked[strings.ToLower(id)] = true
	if !found {
		if err := l.applyUnknown(ctx, id, eo, batch, rep); err != nil {
			l.log.Warn().Str("order", short(id)).Err(err).Msg("handling an order the journal does not know failed")
		}
		return
	}
	market := -1
	if ref, ok := l.byToken[jo.TokenID]; ok {
		market = ref.market
	}
	lo := &liveOrder{JournaledOrder: jo, market: market}
	lo.State = JSent
	l.orders[jo.Hash] = lo
	batch.Revived = append(batch.Revived, jo.Hash)
	l.log.Warn().Str("order", short(jo.Hash)).Str("status", eo.Status).Str("matched", eo.SizeMatched.String()).
		Msg("an order the journal had marked failed reached the exchange after all: its fills are booked and its state corrected")
	l.takeOrder(lo, eo, nil, now, batch, rep)
	if _, live := l.orders[jo.Hash]; !live {
		return
	}
	switch l.cfg.Unknown {
	case UnknownCancel:
		l.log.Warn().Str("order", short(jo.Hash)).Msg("the revived order is live: cancelling it (state.unknown_orders = cancel)")
		l.hist.cancel = append(l.hist.cancel, lo)
	default:
		l.log.Warn().Str("order", short(jo.Hash)).Msg("the revived order is live: the loop manages it as its own")
	}
}

// unsee forgets the trades of order id, so that the next history read
// (whose overlap covers them) takes them again.
func (l *Loop) unsee(id string) {
	mid := "/" + strings.ToLower(id) + "/"
	for k := range l.hist.seen {
		if strings.Contains(k, mid) {
			delete(l.hist.seen, k)
		}
	}
}

// takeRevivedCancels returns the revived orders to cancel this cycle.
func (l *Loop) takeRevivedCancels() []*liveOrder {
	out := l.hist.cancel
	l.hist.cancel = nil
	return out
}

// readBudget returns how many order reads this cycle may make: the round
// robin's share and the evidence's, and whether the venue caps them at all.
func (l *Loop) readBudget(now time.Time) (roundRobin, evidence int, capped bool) {
	rb, ok := l.inner.(ReadBudgeter)
	if !ok {
		return l.cfg.OrderReads, -1, false
	}
	n := max(rb.ReadBudget(now), 0)
	roundRobin = min(l.cfg.OrderReads, int(float64(n)*l.cfg.OrderReadShare))
	return roundRobin, max(n/2, 1), true
}

// grace is how long lo may stay unknown to the exchange after it was
// journaled before it can be declared failed.
func (l *Loop) grace(lo *liveOrder) time.Duration {
	g := l.cfg.NotFoundGrace
	if lo.market >= 0 && lo.market < len(l.markets) {
		g += l.markets[lo.market].m.PlacementDelay
	}
	return g
}

// graceOver reports whether lo's grace has passed at now.
func (l *Loop) graceOver(lo *liveOrder, now time.Time) bool {
	return now.Sub(lo.CreatedAt) > l.grace(lo)
}

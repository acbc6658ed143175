package loop

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Settlement (DESIGN.md §4). A match is not final on the exchange: a trade
// goes MATCHED → MINED → CONFIRMED, or RETRYING → FAILED. The loop books a
// fill when its order's matched size grows (orders.go); the trade history
// (Config.History) tells the trade's status. While a trade is not final its
// fill is pending: a BUY's shares cannot be offered back before MINED
// (Snapshot.Locked), and a FAILED trade takes its fill back (position,
// collateral, PnL), in the journal with the same batch (Batch.Trades), in
// the session's accounting, in the tally and in the log (one line per
// failed trade). Trades not yet final are re-read by id (TradeRereader)
// until they are, when the history's cursor has passed them.

// TradeUpdate is a trade of one of our orders with its settlement status, as
// the journal records it.
type TradeUpdate struct {
	TradeID     string
	OrderHash   string
	ConditionID string
	TokenID     string
	Outcome     strategy.Outcome
	Side        exchange.Side
	Price, Size decimal.Decimal // the order's price (the fill was booked at it) and the trade's size
	Status      string          // exchange.TradeMatched … exchange.TradeFailed
	MatchedAt   time.Time
}

// Key names the trade of the order (a trade may match several of ours).
func (t *TradeUpdate) Key() string { return t.TradeID + "/" + strings.ToLower(t.OrderHash) }

// SettlementJournal is an optional part of a Journal: the trades it holds
// as not final (read at Start), and a trade's recorded status (found false
// when it has none), so that a FAILED trade read again after a restart is
// not taken back twice. Without it a restart forgets the pending trades.
type SettlementJournal interface {
	OpenTrades() ([]TradeUpdate, error)
	TradeStatus(tradeID, orderHash string) (status string, found bool, err error)
}

// TradeRereader is an optional part of a TradeHistory: the account's trades
// with these ids, whatever their time, so that a trade that stays MATCHED
// or RETRYING for minutes is read until it is final after the cursor has
// moved past it.
type TradeRereader interface {
	TradesByID(ctx context.Context, ids []string) ([]OwnTrade, error)
}

// MsgTradeFailed is the message of the one log line per failed trade.
const MsgTradeFailed = "trade failed at settlement: its fill is reversed (position, collateral, PnL)"

// maxRereads bounds the trades re-read by id in one cycle; a venue with a
// read budget (ReadBudgeter) bounds them to an eighth of it.
const maxRereads = 4

// settleState is the loop's view of the trades not yet final.
type settleState struct {
	open  map[string]*openTrade // by TradeUpdate.Key
	queue []OwnTrade            // read, to take once their orders are read (takeSettlements)
}

// openTrade is a trade not yet final.
type openTrade struct {
	TradeUpdate
	lastRead time.Time
}

func (s *settleState) ensure() {
	if s.open == nil {
		s.open = map[string]*openTrade{}
	}
}

// startSettlement loads the trades the journal holds as not final.
func (l *Loop) startSettlement() error {
	l.settle.ensure()
	sj, ok := l.journal.(SettlementJournal)
	if !ok {
		return nil
	}
	ts, err := sj.OpenTrades()
	if err != nil {
		return err
	}
	for _, t := range ts {
		l.settle.open[t.Key()] = &openTrade{TradeUpdate: t}
	}
	return nil
}

// rereadIDs picks the trades to read again by id this cycle: those not yet
// final that the cursor's read no longer covers, least recently read
// first. It only reads the loop's state (it runs on fanOut's goroutines).
func (l *Loop) rereadIDs(now time.Time, since time.Time) []string {
	if _, ok := l.cfg.History.(TradeRereader); !ok || len(l.settle.open) == 0 {
		return nil
	}
	n := maxRereads
	if rb, ok := l.inner.(ReadBudgeter); ok {
		n = min(n, max(rb.ReadBudget(now), 0)/8)
	}
	var due []*openTrade
	for _, t := range l.settle.open {
		if since.IsZero() || t.MatchedAt.Before(since) {
			due = append(due, t)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].lastRead.Equal(due[j].lastRead) {
			return due[i].lastRead.Before(due[j].lastRead)
		}
		return due[i].Key() < due[j].Key()
	})
	seen := map[string]bool{}
	var ids []string
	for _, t := range due {
		if len(ids) >= n {
			break
		}
		if !seen[t.TradeID] {
			seen[t.TradeID] = true
			ids = append(ids, t.TradeID)
		}
	}
	return ids
}

// noteReread stamps the trades read again by id.
func (l *Loop) noteReread(ids []string, now time.Time) {
	if len(ids) == 0 {
		return
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	for _, t := range l.settle.open {
		if want[t.TradeID] {
			t.lastRead = now
		}
	}
}

// queueSettlement keeps a trade read from the history for takeSettlements.
func (l *Loop) queueSettlement(t OwnTrade) {
	if t.Status == "" || t.OrderID == "" {
		return // a source without settlement statuses: nothing to settle
	}
	l.settle.queue = append(l.settle.queue, t)
}

// takeSettlements applies the statuses of the trades read, after the
// cycle's order reads: a trade whose order is tracked but was not read this
// cycle (it is still a suspect: its fill may not be booked yet) waits for
// the next. A trade's first status not final opens it (pending); a change
// is journaled; CONFIRMED closes it; FAILED closes it and takes its fill
// back (reverse).
func (l *Loop) takeSettlements(now time.Time, batch *Batch, rep *CycleReport) {
	l.settle.ensure()
	if len(l.settle.queue) == 0 {
		return
	}
	byID := l.trackedByID()
	keep := l.settle.queue[:0]
	for _, t := range l.settle.queue {
		if lo := byID[strings.ToLower(t.OrderID)]; lo != nil && lo.suspect {
			keep = append(keep, t)
			continue
		}
		l.takeSettlement(t, byID, now, batch, rep)
	}
	clear(l.settle.queue[len(keep):])
	l.settle.queue = keep
}

func (l *Loop) takeSettlement(t OwnTrade, byID map[string]*liveOrder, now time.Time, batch *Batch, rep *CycleReport) {
	status := strings.ToUpper(t.Status)
	var tu TradeUpdate
	key := ""
	ot := l.findOpen(t)
	switch {
	case ot != nil:
		if ot.Status == status {
			return
		}
		tu, key = ot.TradeUpdate, ot.Key()
	case status == exchange.TradeConfirmed:
		return // final before the loop saw it pending: its fill is final as booked
	default:
		var ok bool
		if tu, ok = l.tradeOf(t, byID); !ok {
			return
		}
		key = tu.Key()
		if status == exchange.TradeFailed && l.journaledFailed(tu) {
			return // taken back already (before a restart)
		}
	}
	tu.Status = status
	batch.Trades = append(batch.Trades, tu)
	switch status {
	case exchange.TradeConfirmed:
		delete(l.settle.open, key)
	case exchange.TradeFailed:
		delete(l.settle.open, key)
		l.reverse(&tu, rep)
	default:
		if ot == nil {
			ot = &openTrade{TradeUpdate: tu, lastRead: now}
			l.settle.open[key] = ot
		}
		ot.Status = status
	}
}

// findOpen returns the open trade t names, by its order's id or hash.
func (l *Loop) findOpen(t OwnTrade) *openTrade {
	if ot := l.settle.open[t.ID+"/"+strings.ToLower(t.OrderID)]; ot != nil {
		return ot
	}
	for _, ot := range l.settle.open { // t names the order by an exchange id that is not its hash
		if ot.TradeID == t.ID {
			if lo := l.orders[ot.OrderHash]; lo != nil && strings.EqualFold(lo.ExchangeID, t.OrderID) {
				return ot
			}
		}
	}
	return nil
}

// tradeOf completes a trade from the order it fills: tracked, or in the
// journal (final ones too). A trade of an order neither knows is not ours
// to settle (ok false).
func (l *Loop) tradeOf(t OwnTrade, byID map[string]*liveOrder) (TradeUpdate, bool) {
	var jo JournaledOrder
	if lo := byID[strings.ToLower(t.OrderID)]; lo != nil {
		jo = lo.JournaledOrder
	} else if lk, ok := l.journal.(OrderLookup); ok {
		o, found, err := lk.Order(t.OrderID)
		if err != nil || !found {
			return TradeUpdate{}, false
		}
		jo = o
	} else {
		return TradeUpdate{}, false
	}
	if !t.Size.IsPositive() {
		return TradeUpdate{}, false
	}
	return TradeUpdate{TradeID: t.ID, OrderHash: jo.Hash, ConditionID: jo.ConditionID, TokenID: jo.TokenID, Outcome: jo.Outcome,
		Side: jo.Side, Price: jo.Price, Size: t.Size, MatchedAt: t.Time}, true
}

// journaledFailed reports whether the journal already holds tu as FAILED.
func (l *Loop) journaledFailed(tu TradeUpdate) bool {
	sj, ok := l.journal.(SettlementJournal)
	if !ok {
		return false
	}
	st, found, err := sj.TradeStatus(tu.TradeID, tu.OrderHash)
	if err != nil {
		l.log.Warn().Str("trade", tu.TradeID).Err(err).Msg("reading a trade's recorded status failed")
		return true // not taken back now: the next read of it tries again
	}
	return found && st == exchange.TradeFailed
}

// reverse takes back a failed trade's fill: the position, the session's
// collateral and PnL, the tally; one log line.
func (l *Loop) reverse(tu *TradeUpdate, rep *CycleReport) {
	held := l.pos[tu.TokenID]
	if tu.Side == exchange.Buy {
		l.pos[tu.TokenID] = held.Sub(tu.Size)
	} else {
		l.pos[tu.TokenID] = held.Add(tu.Size)
	}
	l.acct.reverse(tu.TokenID, tu.Side, tu.Price, tu.Size, l.pos[tu.TokenID])
	l.tally.Reversed++
	l.tally.ReversedVolume = l.tally.ReversedVolume.Add(tu.Size)
	rep.Reversed = append(rep.Reversed, *tu)
	l.log.Warn().Str("trade", tu.TradeID).Str("order", short(tu.OrderHash)).Str("market", short(tu.ConditionID)).
		Str("outcome", tu.Outcome.String()).Str("side", string(tu.Side)).Str("price", tu.Price.String()).
		Str("size", tu.Size.String()).Msg(MsgTradeFailed)
}

// unsettledBuys returns, per token, the shares bought in trades not yet
// MINED (MATCHED, or RETRYING on their way to fail): held, not offerable.
func (l *Loop) unsettledBuys() map[string]decimal.Decimal {
	if len(l.settle.open) == 0 {
		return nil
	}
	out := map[string]decimal.Decimal{}
	for _, t := range l.settle.open {
		if t.Side == exchange.Buy && (t.Status == exchange.TradeMatched || t.Status == exchange.TradeRetrying) {
			out[t.TokenID] = out[t.TokenID].Add(t.Size)
		}
	}
	return out
}

// pendingTrades returns how many trades of ours are not final yet.
func (l *Loop) pendingTrades() int { return len(l.settle.open) }

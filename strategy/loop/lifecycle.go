package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// Start reconciles the journal with the exchange before any quoting: every
// non-final order is read back (an intent never acknowledged is looked up by
// its hash and, when the exchange does not know it, marked failed), fills
// found on the way are booked, and orders in markets that are no longer
// configured are cancelled. Only after Start returns nil may the daemon say
// it is ready.
func (l *Loop) Start(ctx context.Context) error {
	now := l.clock.Now()
	pos, err := l.journal.Positions()
	if err != nil {
		return fmt.Errorf("read positions: %w", err)
	}
	for tok, sh := range pos {
		l.pos[tok] = sh
	}
	l.acct.touch()
	open, err := l.journal.NonFinal()
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	for i := range open {
		o := open[i]
		market := -1
		if ref, ok := l.byToken[o.TokenID]; ok {
			market = ref.market
		}
		l.orders[o.Hash] = &liveOrder{JournaledOrder: o, market: market}
	}
	if err := l.startSettlement(); err != nil {
		return fmt.Errorf("read the trades not yet settled: %w", err)
	}
	batch := &Batch{Now: now}
	rep := &CycleReport{Start: now}
	l.readOrders(ctx, now, batch, rep, true)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.startHistory(ctx, now, batch, rep); err != nil {
		return err
	}
	l.takeSettlements(now, batch, rep) // the trades of orders the history named wait for the first cycle's reads
	if err := l.handleUnknown(ctx, batch, rep); err != nil {
		return err
	}
	var orphans []*liveOrder
	for _, lo := range l.orders {
		if lo.market < 0 && lo.State != JIntent {
			orphans = append(orphans, lo)
		}
	}
	orphans = append(orphans, l.takeRevivedCancels()...)
	if len(orphans) > 0 {
		l.log.Warn().Int("orders", len(orphans)).Msg("cancelling journaled orders of markets no longer configured, and revived orders (state.unknown_orders = cancel)")
		l.sendCancels(ctx, orphans, batch, rep)
	}
	if !batch.Empty() {
		if err := l.journal.Apply(batch); err != nil {
			return fmt.Errorf("journal reconciliation: %w", err)
		}
	}
	l.view.reset(l.orders, l.clock.Now())
	l.log.Info().Int("journaled", len(open)).Int("live", len(l.orders)).Int("fills", rep.Fills).Msg("reconciled journal with the exchange")
	return nil
}

// Shutdown stops quoting and cancels every order the loop tracks, then reads
// them back until the exchange confirms each is final or ctx ends: ctx is the
// whole shutdown's deadline. The cancels run concurrently when the
// configuration allows, each bounded by Config.RequestTimeout, so one slow
// cancel holds back no other. Rounds that settle nothing come further and
// further apart, and an order whose cancels keep failing waits between them
// (backoff.go). It returns an error naming how many orders may still be
// live. When the exchange refuses the credentials, it stops at the first
// refusal (while they were refused already, one cancel is sent to see
// whether they still are) and returns a *CredentialsError: retrying cannot
// help, and every request would be refused the same way.
func (l *Loop) Shutdown(ctx context.Context) error {
	defer l.flushErrs()
	clear(l.backoff) // the last chance: every order is tried at once, then backs off again
	settled := l.takeGuardSettled()
	pause := shutdownRoundBase
	for round := 0; ; round++ {
		now := l.clock.Now()
		batch := &Batch{Now: now}
		rep := &CycleReport{Start: now}
		live := l.allLive()
		if len(l.orders) == 0 {
			break // nothing live, and no intent in flight that may yet arrive
		}
		before := len(l.orders)
		switch {
		case round > 0:
			l.readOrders(ctx, now, batch, rep, true)
			live = l.allLive()
		case settled > 0: // the guard cancelled these: read them back instead of cancelling them again
			l.readOrders(ctx, now, batch, rep, false)
			live = l.allLive()
		}
		send := l.withinBudget(live, now)
		if l.auth.refusal() != nil && len(send) > 0 {
			send = send[:1] // refused so far: one cancel tells whether they still are
			l.auth.release()
		}
		l.sendCancels(ctx, send, batch, rep)
		if !batch.Empty() {
			if err := l.journal.Apply(batch); err != nil {
				return fmt.Errorf("journal at shutdown: %w", err)
			}
		}
		left := len(l.orders) // live, or an intent in flight that may yet arrive
		if left == 0 {
			break
		}
		if ce := l.auth.refusal(); ce != nil {
			return credentialsLive(ce, left)
		}
		if left < before {
			pause = shutdownRoundBase
		}
		if err := l.clock.Sleep(ctx, pause); err != nil {
			return fmt.Errorf("%d orders may still be live: %w", left, err)
		}
		if left >= before {
			pause = min(2*pause, shutdownRoundMax)
		}
	}
	l.finish(&CycleReport{Start: l.clock.Now()})
	return nil
}

// finish publishes the cycle's status and report.
func (l *Loop) finish(rep *CycleReport) {
	now := l.clock.Now()
	if rep.Err != nil {
		l.lastErr, l.lastErrAt = rep.Err.Error(), now
	}
	if l.cfg.SkipStatus {
		l.count(rep)
		l.obs.OnCycle(rep)
		return
	}
	st := Status{Time: now, LiveOrders: len(l.orders), LastError: l.lastErr, LastErrorAt: l.lastErrAt, PendingTrades: l.pendingTrades(),
		Markets: make([]MarketStatus, 0, len(l.markets))}
	byMarket := reuseLists(l.bufs.status, len(l.markets))
	l.bufs.status = byMarket
	for _, lo := range l.orders {
		if lo.market >= 0 {
			byMarket[lo.market] = append(byMarket[lo.market], lo)
		}
	}
	mark := l.markFunc()
	l.marks.pnl(l, mark) // the marks as they are now, kept per token
	for i, mr := range l.markets {
		slices.SortFunc(byMarket[i], byHash)
		yes, no := mr.m.TokenIDs[strategy.Yes], mr.m.TokenIDs[strategy.No]
		ms := MarketStatus{ConditionID: mr.m.ConditionID, Slug: mr.m.Slug, Fair: mr.fair, HasFair: mr.hasFair,
			Position: [2]decimal.Decimal{l.pos[yes], l.pos[no]}, Stopped: mr.stopped, Stale: mr.stale, Refused: mr.refusal(),
			LastError: mr.lastErr, LastErrorAt: mr.lastErrAt, Limit: limitName(mr.limit),
			RealizedPnL: mr.statusSums[0].add(l.acct.realized[yes], l.acct.realized[no]),
			MarkedPnL:   mr.statusSums[1].add(l.marks.token(l, yes, mark), l.marks.token(l, no, mark)),
			Rewards:     mr.rewardStatus()}
		if so := &mr.statusOrders; so.same(byMarket[i]) {
			// The very orders of the last status: its list (never written
			// once published) and best prices.
			ms.Orders, ms.Open, ms.BestBid, ms.BestAsk = so.orders, len(so.orders), so.bestBid, so.bestAsk
		} else {
			ms.Orders = make([]OrderStatus, 0, len(byMarket[i]))
			for _, lo := range byMarket[i] {
				ms.Open++
				ms.Orders = append(ms.Orders, orderStatus(lo))
				p, isBid := yesSpaceOf(lo)
				if isBid && (ms.BestBid.IsZero() || p.GreaterThan(ms.BestBid)) {
					ms.BestBid = p
				}
				if !isBid && (ms.BestAsk.IsZero() || p.LessThan(ms.BestAsk)) {
					ms.BestAsk = p
				}
			}
			*so = statusOrders{ok: true, orders: ms.Orders, bestBid: ms.BestBid, bestAsk: ms.BestAsk}
		}
		// Every tracked order, intents in flight too: possibly live (as the
		// plan counts them).
		ms.AtRisk = mr.totals[totalsAll].totals(riskFair(mr), ms.Position, byMarket[i]).AtRisk
		ms.OrdersAtRisk = mr.totals[totalsAllBare].totals(riskFair(mr), [2]decimal.Decimal{}, byMarket[i]).AtRisk
		for o := range mr.books {
			if mr.hasBook[o] {
				if age := now.Sub(mr.books[o].Updated); age > ms.BookAge {
					ms.BookAge = age
				}
			}
		}
		st.Markets = append(st.Markets, ms)
	}
	l.count(rep)
	st.Tally = l.tally
	if l.cfg.Kill != nil {
		if t, trip := l.cfg.Kill.Tripped(); t {
			st.Tripped, st.TripReason = true, trip.Reason.String()+": "+trip.Detail
		}
	}
	l.mu.Lock()
	l.status = st
	l.mu.Unlock()
	rep.Status = &st
	l.obs.OnCycle(rep)
}

// count adds the cycle to the tally.
func (l *Loop) count(rep *CycleReport) {
	if rep.Err != nil {
		l.tally.CycleErrors++
	}
	l.tally.Cycles++
	l.tally.LastCycleTime = rep.Duration
}

// noteErr records the last error met on market i (ignored for an order of
// no configured market, i < 0).
func (l *Loop) noteErr(i int, msg string) {
	if i < 0 || i >= len(l.markets) {
		return
	}
	mr := l.markets[i]
	mr.lastErr, mr.lastErrAt = msg, l.clock.Now()
}

// yesSpaceOf returns an order's price in YES space and whether it is a bid
// there (BUY YES and SELL NO are bids; SELL YES and BUY NO are asks).
// sumMemo2 is a sum of two decimals, with the very decimals it was made
// of (the same decimals hold the same values: the same sum).
type sumMemo2 struct {
	ok        bool
	a, b, sum decimal.Decimal
}

// add returns a.Add(b).
func (m *sumMemo2) add(a, b decimal.Decimal) decimal.Decimal {
	if !m.ok || m.a != a || m.b != b {
		*m = sumMemo2{ok: true, a: a, b: b, sum: a.Add(b)}
	}
	return m.sum
}

// orderStatus is lo as a status shows it.
func orderStatus(lo *liveOrder) OrderStatus {
	return OrderStatus{Hash: lo.Hash, ExchangeID: lo.ExchangeID, TokenID: lo.TokenID, Outcome: lo.Outcome,
		Side: lo.Side, Price: lo.Price, Size: lo.Size, Matched: lo.SizeMatched, State: lo.State, CreatedAt: lo.CreatedAt}
}

// statusOrders is a market's orders in the last status, and the best bid
// and ask in YES space they gave.
type statusOrders struct {
	ok               bool
	orders           []OrderStatus
	bestBid, bestAsk decimal.Decimal
}

// same reports whether los, as a status shows them, are the orders
// remembered, field for field (the same decimals: the same values).
func (so *statusOrders) same(los []*liveOrder) bool {
	if !so.ok || len(so.orders) != len(los) {
		return false
	}
	for i, lo := range los {
		if so.orders[i] != orderStatus(lo) {
			return false
		}
	}
	return true
}

func yesSpaceOf(lo *liveOrder) (decimal.Decimal, bool) {
	buy := lo.Side == exchange.Buy
	if lo.Outcome == strategy.Yes {
		return lo.Price, buy
	}
	return decimal.NewFromInt(1).Sub(lo.Price), !buy
}

// CancelAll cancels every order the journal owns and waits until the
// exchange confirms each is final (or ctx ends): it proves the credentials
// (CheckCredentials: a refusal is a *CredentialsError counting the
// journal's non-final orders), reconciles the journal as Start does, then
// cancels as Shutdown does. It quotes nothing.
func CancelAll(ctx context.Context, v Venue, j Journal, c Clock, log zerolog.Logger) (Tally, error) {
	l, err := New(Config{}, v, noSigner{}, j, c, log, nil)
	if err != nil {
		return Tally{}, err
	}
	// Refused credentials would make every read and cancel fail the same
	// way: one request finds out first.
	if err := CheckCredentials(ctx, v); err != nil {
		var ce *CredentialsError
		if errors.As(err, &ce) {
			if open, jerr := j.NonFinal(); jerr == nil {
				ce.Live = len(open)
			}
		}
		return l.tally, err
	}
	if err := l.Start(ctx); err != nil {
		return l.tally, err
	}
	err = l.Shutdown(ctx)
	return l.tally, err
}

type noSigner struct{}

func (noSigner) SignOrder(*strategy.Market, *strategy.Order, exchange.OrderType) (exchange.PlacementItem, string, error) {
	return exchange.PlacementItem{}, "", errors.New("loop: this loop does not sign")
}

// limitName is a limit's name for the status, "" for none.
func limitName(r risk.Reason) string {
	if r == 0 {
		return ""
	}
	return r.String()
}

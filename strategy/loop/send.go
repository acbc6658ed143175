package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// sendCancels cancels orders one DELETE /order each. A confirmed cancel
// reads the order back for the size it matched since it was last read (a
// fill just before the cancel), then finalises it; when that read fails the
// order stays tracked and the next read settles it. An order the exchange
// no longer has is read again (it may have filled); a failed call is
// counted against the kill switch. After a throttled cancel (429) no cancel
// is sent until its Retry-After has passed: the rest wait for a later cycle
// instead of stalling this one on the rate limiter. It returns the markets
// with a cancel
// that was not confirmed, or that found a fill the plan did not know of
// (nil when there is none).
func (l *Loop) sendCancels(ctx context.Context, cancels []*liveOrder, batch *Batch, rep *CycleReport) map[int]bool {
	var unconfirmed map[int]bool
	miss := func(lo *liveOrder) {
		if unconfirmed == nil {
			unconfirmed = map[int]bool{}
		}
		unconfirmed[lo.market] = true
	}
	for _, lo := range cancels {
		if ctx.Err() != nil || l.clock.Now().Before(l.cancelsHeld) {
			miss(lo)
			continue
		}
		if _, ok := l.orders[lo.Hash]; !ok {
			continue // already final (listed twice)
		}
		id := orderID(lo)
		res, err := l.venue.CancelOrder(ctx, id)
		if err != nil {
			miss(lo)
			if errors.Is(err, exchange.ErrNotFound) {
				lo.suspect = true
				continue
			}
			l.orderResult(false)
			l.tally.CancelFailed++
			l.log.Warn().Str("order", short(lo.Hash)).Err(err).Msg("cancel failed")
			l.noteErr(lo.market, "cancel of "+short(lo.Hash)+" failed: "+err.Error())
			if until, ok := throttledUntil(err, l.clock.Now()); ok {
				l.cancelsHeld = until
				l.log.Warn().Time("until", until).Msg("the exchange throttles cancels: sending none until then")
			}
			continue
		}
		l.orderResult(true)
		if slices.Contains(res.Canceled, id) {
			eo, err := l.venue.Order(ctx, id)
			if err != nil {
				lo.suspect = true // cancelled; the next read books what it matched
				l.log.Debug().Str("order", short(lo.Hash)).Err(err).Msg("reading a cancelled order failed; it will be read again")
				continue
			}
			if eo.SizeMatched.GreaterThan(lo.SizeMatched) {
				l.fill(lo, eo.SizeMatched, l.clock.Now(), batch, rep)
				miss(lo) // the plan took this order's whole size as gone: plan again
			}
			st := JCanceled
			if lo.SizeMatched.GreaterThanOrEqual(lo.Size) {
				st = JFilled
			}
			l.finalise(lo, Update{Hash: lo.Hash, ExchangeID: lo.ExchangeID, State: st, SizeMatched: lo.SizeMatched}, batch)
			l.tally.Cancelled++
			rep.Cancelled++
			continue
		}
		miss(lo)
		why := res.NotCanceled[id]
		l.log.Info().Str("order", short(lo.Hash)).Str("reason", why).Msg("exchange did not cancel the order; reading it")
		l.noteErr(lo.market, "exchange did not cancel "+short(lo.Hash)+": "+why)
		lo.suspect = true
	}
	return unconfirmed
}

// sendPlaces sends the journaled intents in batches of MaxBatch. A batch
// whose call fails leaves its orders "sent": nothing is resent, and the
// order reads of the next cycles find out what happened (by hash). Intents
// not handed to the venue because ctx ended, or because a batch was
// throttled (429) and its Retry-After has not passed, are marked failed:
// they never left.
func (l *Loop) sendPlaces(ctx context.Context, intents []Intent, batch *Batch, rep *CycleReport) {
	for start := 0; start < len(intents); start += l.cfg.MaxBatch {
		err := ctx.Err()
		if now := l.clock.Now(); err == nil && now.Before(l.placesHeld) {
			err = fmt.Errorf("the exchange throttles placements until %s", l.placesHeld.Format(time.RFC3339))
		}
		if err != nil {
			for i := start; i < len(intents); i++ {
				if lo := l.orders[intents[i].Hash]; lo != nil {
					l.finalise(lo, Update{Hash: lo.Hash, State: JFailed, Err: "not sent: " + err.Error()}, batch)
				}
			}
			return
		}
		chunk := intents[start:min(start+l.cfg.MaxBatch, len(intents))]
		items := make([]exchange.PlacementItem, len(chunk))
		for i := range chunk {
			items[i] = chunk[i].Item
			batch.Sent = append(batch.Sent, chunk[i].Hash)
			if lo := l.orders[chunk[i].Hash]; lo != nil {
				lo.State = JSent
			}
		}
		results, err := l.venue.PlaceOrders(ctx, items)
		if err != nil {
			l.orderResult(false)
			l.log.Warn().Int("orders", len(chunk)).Err(err).Msg("placing a batch failed; its orders will be reconciled by hash")
			for i := range chunk {
				if lo := l.orders[chunk[i].Hash]; lo != nil {
					l.noteErr(lo.market, "placing a batch failed: "+err.Error())
				}
			}
			if until, ok := throttledUntil(err, l.clock.Now()); ok {
				l.placesHeld = until
			}
			continue
		}
		for i := range chunk {
			lo := l.orders[chunk[i].Hash]
			if lo == nil {
				continue
			}
			if i >= len(results) {
				l.log.Warn().Str("order", short(lo.Hash)).Msg("no result for the order; it will be reconciled by hash")
				continue
			}
			r := &results[i]
			if !r.Success {
				l.orderResult(false)
				l.tally.PlaceFailed++
				rep.Rejected = append(rep.Rejected, "exchange")
				l.log.Warn().Str("order", short(lo.Hash)).Str("error", r.ErrorMsg).Msg("exchange refused the order")
				l.noteErr(lo.market, "exchange refused "+short(lo.Hash)+": "+r.ErrorMsg)
				l.finalise(lo, Update{Hash: lo.Hash, ExchangeID: r.OrderID, State: JFailed, Err: r.ErrorMsg}, batch)
				continue
			}
			l.orderResult(true)
			l.tally.Placed++
			rep.Placed++
			if r.OrderID != "" {
				lo.ExchangeID = r.OrderID
			}
			st := JLive
			switch r.Status {
			case exchange.PlaceDelayed:
				st = JSent
			case exchange.PlaceMatched:
				lo.suspect = true // the order read books the fill
			}
			lo.State = st
			batch.Updates = append(batch.Updates, Update{Hash: lo.Hash, ExchangeID: lo.ExchangeID, State: st, SizeMatched: lo.SizeMatched})
		}
	}
}

// throttledUntil reads a throttle out of a venue's error: a 429 (its
// Retry-After, as the client capped it) or the rate limiter's refusal to
// wait past a deadline. ok is false for any other error.
func throttledUntil(err error, now time.Time) (until time.Time, ok bool) {
	if !errors.Is(err, exchange.ErrRateLimited) {
		return time.Time{}, false
	}
	wait := exchange.DefaultRetryAfter
	var ae *exchange.APIError
	var we *exchange.WaitError
	switch {
	case errors.As(err, &ae) && ae.RetryAfter > 0:
		wait = ae.RetryAfter
	case errors.As(err, &we) && we.Delay > 0:
		wait = we.Delay
	}
	return now.Add(wait), true
}

// finalise records a final update and stops tracking the order.
func (l *Loop) finalise(lo *liveOrder, u Update, batch *Batch) {
	lo.State = u.State
	batch.Updates = append(batch.Updates, u)
	delete(l.orders, lo.Hash)
}

func (l *Loop) orderResult(ok bool) {
	if l.cfg.Kill != nil {
		l.cfg.Kill.OnOrderResult(ok, l.clock.Now())
	}
}

func orderID(lo *liveOrder) string {
	if lo.ExchangeID != "" {
		return lo.ExchangeID
	}
	return lo.Hash
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

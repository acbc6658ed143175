package loop

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// sendCancels cancels orders one DELETE /order each. A confirmed cancel
// reads the order back for the size it matched since it was last read (a
// fill just before the cancel), then finalises it; when that read fails the
// order stays tracked and the next read settles it. An order the exchange
// no longer has is read again (it may have filled); a failed call is
// counted against the kill switch. The cancels do not depend on each other:
// they run concurrently when the configuration allows, and their answers
// are applied in the order given. After a throttled cancel (429) no cancel
// is sent until its Retry-After has passed (Loop.cancelsHeld): the rest
// wait for a later cycle instead of stalling this one on the rate limiter;
// the cancels of this call not yet started when one is throttled are not
// sent either. It returns the markets with a cancel that was not
// confirmed, or that found a fill the plan did not know of (nil when there
// is none).
func (l *Loop) sendCancels(ctx context.Context, cancels []*liveOrder, batch *Batch, rep *CycleReport) map[int]bool {
	var unconfirmed map[int]bool
	miss := func(lo *liveOrder) {
		if unconfirmed == nil {
			unconfirmed = map[int]bool{}
		}
		unconfirmed[lo.market] = true
	}
	list := make([]*liveOrder, 0, len(cancels))
	listed := map[string]bool{}
	l.backoff.prune(l.orders)
	start := l.clock.Now()
	for _, lo := range cancels {
		if _, ok := l.orders[lo.Hash]; !ok || listed[lo.Hash] {
			continue // already final, or listed twice
		}
		listed[lo.Hash] = true
		if l.backoff.waiting(lo.Hash, start) {
			miss(lo) // its last cancels failed: not yet (backoff.go)
			continue
		}
		list = append(list, lo)
	}
	out := make([]cancelResult, len(list))
	gate := &throttleGate{until: l.cancelsHeld}
	l.fanOut(ctx, len(list), func(ctx context.Context, i int) {
		if _, held := gate.held(l.clock.Now()); held {
			return // not sent: the exchange throttles cancels
		}
		fetchCancel(ctx, l.venue, list[i], &out[i])
		if out[i].err != nil {
			gate.throttled(out[i].err, l.clock.Now())
		}
	})
	if gate.until.After(l.cancelsHeld) {
		l.cancelsHeld = gate.until
		l.log.Warn().Time("until", gate.until).Msg("the exchange throttles cancels: sending none until then")
	}
	now := l.clock.Now()
	for i, lo := range list {
		r := &out[i]
		if !r.done {
			miss(lo)
			continue
		}
		lo.lastCancel = now
		id := orderID(lo)
		if r.err != nil {
			miss(lo)
			if errors.Is(r.err, exchange.ErrNotFound) {
				lo.suspect = true
				continue
			}
			if notSent(r.err) {
				continue // held back while the credentials are refused: tried again later
			}
			l.orderError(r.err)
			l.tally.CancelFailed++
			if _, throttled := throttledUntil(r.err, now); !throttled {
				lo.suspect = true // the answer is ambiguous (the cancel may have been applied): read it
			}
			l.cancelFailed(lo, r.err, now)
			continue
		}
		delete(l.backoff, lo.Hash)
		l.orderResult(true)
		if r.confirmed {
			if r.readErr != nil {
				lo.suspect = true // cancelled; the next read books what it matched
				l.log.Debug().Str("order", short(lo.Hash)).Err(r.readErr).Msg("reading a cancelled order failed; it will be read again")
				continue
			}
			if r.eo.SizeMatched.GreaterThan(lo.SizeMatched) {
				l.fill(lo, r.eo.SizeMatched, l.clock.Now(), batch, rep)
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
		why := r.res.NotCanceled[id]
		l.log.Info().Str("order", short(lo.Hash)).Str("reason", why).Msg("exchange did not cancel the order; reading it")
		l.noteErr(lo.market, "exchange did not cancel "+short(lo.Hash)+": "+why)
		lo.suspect = true
	}
	return unconfirmed
}

// withinBudget returns the cancels to send now when they all must go (the
// kill switch's, Shutdown's). One at a time, each waits for its rate budget
// in turn: all of them. Concurrently they would race for the budget, and
// those that lose would fail at their deadline, at random: so only as many
// as the DELETE budget takes now are sent (at least one, which waits for
// its token), least recently tried first, so that every order gets its turn;
// orders the exchange did not know at their last read (a placement whose
// answer was lost, which may never have arrived) go after the others.
func (l *Loop) withinBudget(cancels []*liveOrder, now time.Time) []*liveOrder {
	if l.cfg.Concurrency <= 1 {
		return cancels
	}
	n := max(l.venue.Budget(now).Cancels, 1)
	if n >= len(cancels) {
		return cancels
	}
	out := slices.Clone(cancels)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].unknown != out[j].unknown {
			return !out[i].unknown
		}
		return out[i].lastCancel.Before(out[j].lastCancel)
	})
	return out[:n]
}

// cancelResult is what one cancel (and the read-back of a confirmed one)
// brought back.
type cancelResult struct {
	done      bool
	res       *exchange.CancelResult
	err       error
	confirmed bool // the exchange listed the order as cancelled
	eo        *exchange.Order
	readErr   error
}

// fetchCancel cancels lo and reads it back when the exchange confirms. It
// runs on fanOut's goroutines and only reads lo.
func fetchCancel(ctx context.Context, v Venue, lo *liveOrder, r *cancelResult) {
	r.done = true
	id := orderID(lo)
	r.res, r.err = v.CancelOrder(ctx, id)
	if r.err != nil {
		return
	}
	if r.confirmed = slices.Contains(r.res.Canceled, id); r.confirmed {
		r.eo, r.readErr = v.Order(ctx, id)
	}
}

// placeResult is what one POST /orders batch brought back.
type placeResult struct {
	sent    bool   // handed to the venue
	notSent string // why not, when not
	results []exchange.PlacementResult
	err     error
}

// sendPlaces sends the journaled intents in batches of MaxBatch. A batch
// whose call fails leaves its orders "sent": nothing is resent, and the
// order reads of the next cycles find out what happened (by hash). The
// batches run concurrently when the configuration allows; their answers are
// applied in batch order. Intents not handed to the venue, because ctx
// ended, the kill switch tripped first, or a batch was throttled (429) and
// its Retry-After has not passed (Loop.placesHeld), are marked failed: they
// never left. Each order is shown to the guard before the request that may
// make it live.
func (l *Loop) sendPlaces(ctx context.Context, intents []Intent, batch *Batch, rep *CycleReport) {
	var chunks [][]Intent
	for start := 0; start < len(intents); start += l.cfg.MaxBatch {
		chunks = append(chunks, intents[start:min(start+l.cfg.MaxBatch, len(intents))])
	}
	markets := make([][]int, len(chunks))
	for i, chunk := range chunks {
		for j := range chunk {
			market := -1
			if lo := l.orders[chunk[j].Hash]; lo != nil {
				market = lo.market
			}
			markets[i] = append(markets[i], market)
		}
	}
	out := make([]placeResult, len(chunks))
	gate := &throttleGate{until: l.placesHeld}
	l.fanOut(ctx, len(chunks), func(ctx context.Context, i int) {
		r := &out[i]
		if ctx.Err() != nil {
			r.notSent = "not sent: " + ctx.Err().Error()
			return
		}
		if l.tripped() {
			r.notSent = "not sent: the kill switch tripped"
			return
		}
		if until, held := gate.held(l.clock.Now()); held {
			r.notSent = "not sent: the exchange throttles placements until " + until.Format(time.RFC3339)
			return
		}
		items := make([]exchange.PlacementItem, len(chunks[i]))
		for j := range chunks[i] {
			items[j] = chunks[i][j].Item
			l.view.expose(chunks[i][j].Hash, chunks[i][j].Hash, markets[i][j])
		}
		r.sent = true
		r.results, r.err = l.venue.PlaceOrders(ctx, items)
		if notSent(r.err) { // held back: the credentials are refused (auth.go)
			r.sent, r.notSent = false, r.err.Error()
			return
		}
		if r.err != nil {
			gate.throttled(r.err, l.clock.Now())
		}
	})
	if gate.until.After(l.placesHeld) {
		l.placesHeld = gate.until
	}
	for i, chunk := range chunks {
		r := &out[i]
		if !r.sent {
			why := r.notSent
			if why == "" {
				why = "not sent"
				if err := ctx.Err(); err != nil {
					why += ": " + err.Error()
				}
			}
			for j := range chunk {
				if lo := l.orders[chunk[j].Hash]; lo != nil {
					l.finalise(lo, Update{Hash: lo.Hash, State: JFailed, Err: why}, batch)
				}
			}
			continue
		}
		for j := range chunk {
			batch.Sent = append(batch.Sent, chunk[j].Hash)
			if lo := l.orders[chunk[j].Hash]; lo != nil {
				lo.State = JSent
			}
		}
		if r.err != nil {
			l.orderError(r.err)
			if !isAuthRefusal(r.err) { // else the authWatch said it
				l.log.Warn().Int("orders", len(chunk)).Err(r.err).Msg("placing a batch failed; its orders will be reconciled by hash")
			}
			for j := range chunk {
				if lo := l.orders[chunk[j].Hash]; lo != nil {
					l.noteErr(lo.market, "placing a batch failed: "+r.err.Error())
				}
			}
			continue
		}
		for j := range chunk {
			lo := l.orders[chunk[j].Hash]
			if lo == nil {
				continue
			}
			if j >= len(r.results) {
				l.log.Warn().Str("order", short(lo.Hash)).Msg("no result for the order; it will be reconciled by hash")
				continue
			}
			res := &r.results[j]
			if !res.Success {
				l.orderResult(false)
				l.tally.PlaceFailed++
				rep.Rejected = append(rep.Rejected, "exchange")
				l.log.Warn().Str("order", short(lo.Hash)).Str("error", res.ErrorMsg).Msg("exchange refused the order")
				l.noteErr(lo.market, "exchange refused "+short(lo.Hash)+": "+res.ErrorMsg)
				l.finalise(lo, Update{Hash: lo.Hash, ExchangeID: res.OrderID, State: JFailed, Err: res.ErrorMsg}, batch)
				continue
			}
			l.orderResult(true)
			l.tally.Placed++
			rep.Placed++
			if res.OrderID != "" && res.OrderID != lo.ExchangeID {
				lo.ExchangeID = res.OrderID
				l.view.expose(lo.Hash, res.OrderID, lo.market)
			}
			st := JLive
			switch res.Status {
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

// throttleGate is the throttle hold of one fan-out of cancels or placements
// (Loop.cancelsHeld, Loop.placesHeld): once a request is throttled, those
// not yet started are not sent until its Retry-After has passed. It is safe
// for fanOut's goroutines.
type throttleGate struct {
	mu    sync.Mutex
	until time.Time
}

// held returns until when the venue is throttled, and whether now is before.
func (g *throttleGate) held(now time.Time) (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.until, now.Before(g.until)
}

// throttled extends the hold when err is a throttle (throttledUntil).
func (g *throttleGate) throttled(err error, now time.Time) {
	until, ok := throttledUntil(err, now)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if until.After(g.until) {
		g.until = until
	}
}

// throttledUntil reads a throttle out of a venue's error: a 429, or a 425
// or 503 (the exchange not ready: exchange.ErrNotReady), for its
// Retry-After as the client capped it (a second without one), or the rate
// limiter's refusal to wait past a deadline. ok is false for any other
// error.
func throttledUntil(err error, now time.Time) (until time.Time, ok bool) {
	if !errors.Is(err, exchange.ErrRateLimited) && !errors.Is(err, exchange.ErrNotReady) {
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
	l.view.drop(lo.Hash)
}

// orderError counts a failed order call against the kill switch's error
// limits, except when the exchange said it is not ready (425, 503): that is
// a pause to wait out (the loop holds its sends until its Retry-After), not
// an error of ours. Either way an answer of an exchange that is away (not
// ready, 5xx, no answer) tells the kill switch it is not answering normally.
func (l *Loop) orderError(err error) {
	if l.cfg.Kill == nil {
		return
	}
	now := l.clock.Now()
	gone := away(err)
	if gone {
		l.cfg.Kill.OnExchange(false, now)
	}
	if errors.Is(err, exchange.ErrNotReady) {
		return
	}
	l.cfg.Kill.OnOrderFailure(gone, now)
}

// away reports whether err says the exchange is away: not ready, a server
// error, or no HTTP answer at all (not the rate limiter's own refusal, nor
// a cancelled context).
func away(err error) bool {
	var ae *exchange.APIError
	var we *exchange.WaitError
	switch {
	case errors.Is(err, exchange.ErrNotReady), errors.Is(err, exchange.ErrServer):
		return true
	case errors.As(err, &ae), errors.As(err, &we), errors.Is(err, context.Canceled):
		return false
	}
	return true
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

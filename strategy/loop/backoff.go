package loop

import (
	"context"
	"errors"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// A cancel that fails (any error but "not found" and a throttle, which has
// its own hold: Loop.cancelsHeld) is not sent again at once: the order
// waits cancelRetryBase after its first failure, doubling with each
// failure in a row up to cancelRetryMax, whether the kill switch's
// cancel-all, a re-quote or Shutdown asks for it. A confirmed cancel (or
// any answer that is not a failure) clears the wait.
const (
	cancelRetryBase = 500 * time.Millisecond
	cancelRetryMax  = 8 * time.Second
)

// Shutdown's rounds (cancel, then read back) start shutdownRoundBase apart;
// a round that settles no order doubles the pause, up to shutdownRoundMax,
// and one that settles some brings it back to shutdownRoundBase.
const (
	shutdownRoundBase = 200 * time.Millisecond
	shutdownRoundMax  = 2 * time.Second
)

// cancelBackoff holds, by order hash, the orders whose last cancels failed.
type cancelBackoff map[string]backoffState

type backoffState struct {
	fails int       // failures in a row
	next  time.Time // no cancel before
}

// cancelRetryAfter is the wait after the n-th failure in a row (n ≥ 1).
func cancelRetryAfter(n int) time.Duration {
	d := cancelRetryBase
	for i := 1; i < n && d < cancelRetryMax; i++ {
		d *= 2
	}
	return min(d, cancelRetryMax)
}

// failed records a failed cancel of hash at now and returns the wait
// before the next one.
func (b cancelBackoff) failed(hash string, now time.Time) time.Duration {
	s := b[hash]
	s.fails++
	wait := cancelRetryAfter(s.fails)
	s.next = now.Add(wait)
	b[hash] = s
	return wait
}

// waiting reports whether a cancel of hash must wait at now.
func (b cancelBackoff) waiting(hash string, now time.Time) bool {
	s, ok := b[hash]
	return ok && now.Before(s.next)
}

// prune forgets the orders the loop no longer tracks.
func (b cancelBackoff) prune(orders map[string]*liveOrder) {
	for h := range b {
		if _, ok := orders[h]; !ok {
			delete(b, h)
		}
	}
}

// backsOff reports whether a failed cancel's error starts (or lengthens)
// its order's wait: not "not found" (the order is read instead), a
// throttle (all cancels are held instead) nor a timeout (the cancel has
// waited its request timeout already, and its order's fate is unknown).
func backsOff(err error) bool {
	return !errors.Is(err, exchange.ErrNotFound) && !errors.Is(err, exchange.ErrRateLimited) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

// MsgCancelFailed is the message of the one warning logged per distinct
// cancel failure.
const MsgCancelFailed = "cancel failed; the order is tried again after a backoff (0.5s doubling to 8s). The same failure is counted, summarized every minute and at shutdown"

// cancelFailed handles a failed cancel of lo: its backoff, and the first
// log line of its kind (a refusal of the credentials was logged by the
// authWatch).
func (l *Loop) cancelFailed(lo *liveOrder, err error, now time.Time) {
	if backsOff(err) {
		l.backoff.failed(lo.Hash, now)
	}
	l.noteErr(lo.market, "cancel of "+short(lo.Hash)+" failed: "+err.Error())
	if isAuthRefusal(err) {
		return
	}
	if l.cancelErrs.add(errKey(err), map[string]any{"error": errKey(err)}, now) {
		l.log.Warn().Str("order", short(lo.Hash)).Err(err).Msg(MsgCancelFailed)
	}
}

// flushErrs logs the summaries of the repeated errors not yet summarized.
func (l *Loop) flushErrs() {
	now := l.clock.Now()
	l.auth.flush(now)
	l.cancelErrs.flush(now)
}

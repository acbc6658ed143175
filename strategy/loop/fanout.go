package loop

import (
	"context"
	"sync"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// timerClock is a Clock that can call a function at a later instant of its
// own time, registered before AfterFunc returns and removed by stop. The
// fake clock of package exchange/clocktest is one.
type timerClock interface {
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// canTime reports whether c can bound a context by its own time: the system
// clock, or a timerClock. A backtest's clock cannot: sleeping on it moves
// simulated time, so nothing may wait on it from another goroutine.
func canTime(c Clock) bool {
	switch c.(type) {
	case exchange.SystemClock, *exchange.SystemClock, timerClock:
		return true
	}
	return false
}

// withTimeout returns a context that ends when ctx does or after d of c's
// time, whichever comes first; d <= 0 adds no bound. With the system clock
// it is a real deadline, so the exchange client's limiter can fail at once
// when a wait for rate budget would pass it. With a timerClock the context
// ends (cause context.DeadlineExceeded) when the clock reaches the instant.
// A clock that cannot time (canTime false) adds no bound: New and NewGuard
// refuse timeouts with such a clock.
func withTimeout(ctx context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	switch tc := c.(type) {
	case exchange.SystemClock, *exchange.SystemClock:
		return context.WithTimeout(ctx, d)
	case timerClock:
		cctx, cancel := context.WithCancelCause(ctx)
		stop := tc.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
		return cctx, func() {
			stop()
			cancel(context.Canceled)
		}
	}
	return context.WithCancel(ctx)
}

// fanOut calls do(ctx, i) for each i < n, each with ctx bounded by
// timeout on clock c. With limit <= 1 the calls run one at a time, in
// index order, on the calling goroutine: a backtest's venue sees the same
// calls in the same order on every run. Otherwise up to limit run at once
// and fanOut returns when all have returned. A call not started because ctx
// ended is skipped. do may only call the venue and write its own result
// slot; the caller applies the results in index order, so what the loop
// does with them does not depend on which answer came first.
func fanOut(ctx context.Context, c Clock, timeout time.Duration, limit, n int, do func(ctx context.Context, i int)) {
	call := func(i int) {
		if timeout <= 0 {
			do(ctx, i)
			return
		}
		rctx, cancel := withTimeout(ctx, c, timeout)
		defer cancel()
		do(rctx, i)
	}
	if limit <= 1 || n <= 1 {
		for i := range n {
			if ctx.Err() != nil {
				return
			}
			call(i)
		}
		return
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		wg.Go(func() {
			defer func() { <-sem }()
			call(i)
		})
	}
}

// fanOut runs one cycle's independent requests (see the function fanOut)
// with the loop's Concurrency and RequestTimeout.
func (l *Loop) fanOut(ctx context.Context, n int, do func(ctx context.Context, i int)) {
	fanOut(ctx, l.clock, l.cfg.RequestTimeout, l.cfg.Concurrency, n, do)
}

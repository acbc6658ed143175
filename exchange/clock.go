package exchange

import (
	"context"
	"time"
)

// Clock is the time source of the client's limiter and retries. Tests and
// backtests pass a fake (package exchange/clocktest) so that nothing really
// sleeps.
type Clock interface {
	Now() time.Time
	// Sleep blocks for d or until ctx is done, whichever comes first, and
	// returns ctx.Err() in the second case. d <= 0 returns at once (nil
	// unless ctx is already done).
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real Clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits on a timer.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

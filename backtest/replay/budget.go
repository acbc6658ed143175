package replay

import (
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"

	"github.com/mmbot/mmbot/exchange"
)

// rateBuckets simulates the client's token buckets of POST /order and
// DELETE /order (burst and sustained windows each) on simulated time, with
// the client's shapes (exchange.BucketShape), so no window ever holds more
// than fill × the cap C.
type rateBuckets struct {
	post, del [2]*rate.Limiter
}

func newBucket(c exchange.Cap, fill float64, now time.Time) *rate.Limiter {
	burst, perWindow := exchange.BucketShape(c, fill)
	lim := rate.NewLimiter(rate.Limit(perWindow/c.Window.Seconds()), burst)
	lim.SetBurstAt(now, burst)
	return lim
}

func (b *rateBuckets) init(l exchange.Limits, now time.Time) error {
	if err := l.Validate(); err != nil {
		return fmt.Errorf("backtest: %w", err)
	}
	b.post = [2]*rate.Limiter{newBucket(l.PostOrderBurst, l.Fill, now), newBucket(l.PostOrderSustained, l.Fill, now)}
	b.del = [2]*rate.Limiter{newBucket(l.DeleteOrderBurst, l.Fill, now), newBucket(l.DeleteOrderSustained, l.Fill, now)}
	return nil
}

// budget is what the buckets can give at now, as the client's Budget.
func (b *rateBuckets) budget(now time.Time) exchange.Budget {
	return exchange.Budget{Orders: min(avail(b.post[0], now), avail(b.post[1], now)),
		Cancels: min(avail(b.del[0], now), avail(b.del[1], now))}
}

func avail(l *rate.Limiter, now time.Time) int {
	t := l.TokensAt(now)
	if t < 0 {
		return 0
	}
	return int(math.Floor(t))
}

// wait returns how long from now until both buckets of pair can give n
// units, or an error when n exceeds a burst (the client refuses such a
// request).
func wait(pair [2]*rate.Limiter, n int, now time.Time) (time.Duration, error) {
	var d time.Duration
	for _, l := range pair {
		if n > l.Burst() {
			return 0, fmt.Errorf("backtest: %d units exceed the rate-limit burst %d; send smaller batches", n, l.Burst())
		}
		if need := float64(n) - l.TokensAt(now); need > 0 {
			d = max(d, time.Duration(math.Ceil(need/float64(l.Limit())*1e9)))
		}
	}
	return d, nil
}

// take removes n units from both buckets of pair at now.
func take(pair [2]*rate.Limiter, n int, now time.Time) {
	for _, l := range pair {
		l.ReserveN(now, n)
	}
}

// throttle waits, in simulated time, until the buckets can give n units
// and takes them, as the client's limiter does before a request.
func (r *Replay) throttle(pair [2]*rate.Limiter, n int) error {
	d, err := wait(pair, n, r.now)
	if err != nil {
		return err
	}
	if d > 0 {
		r.advanceTo(r.now.Add(d))
		if r.err != nil {
			return r.err
		}
	}
	take(pair, n, r.now)
	return nil
}

package exchange

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// cost is the number of units a request takes from one bucket.
type cost struct {
	b bucketID
	n int
}

// bucket is one token bucket: a rate.Limiter driven by explicit times only
// (TokensAt, ReserveN), plus a block set by a 429's Retry-After.
type bucket struct {
	cap          Cap
	burst        int
	perSecond    float64
	perWindow    float64 // r·W
	ceiling      float64 // the most units a window may hold (windowCeiling)
	lim          *rate.Limiter
	blockedUntil time.Time
	admitted     uint64    // units taken since creation
	log          *spendLog // units taken in the last window, for Spent
}

// limiter holds every bucket. One mutex covers all of them, so a request
// takes its units from all its buckets at one instant or not at all.
type limiter struct {
	mu      sync.Mutex
	buckets [numBuckets]*bucket
	retired bool // Retire was called: nothing is admitted any more
	// admitHook, when set (tests), is called under the lock with the
	// admission time of each request.
	admitHook func(now time.Time, costs []cost)
}

// newLimiter returns the buckets of l, full at now, or (when spent is not
// nil) holding what a previous process's usage leaves them (WithSpent).
func newLimiter(l Limits, now time.Time, spent *Spent) (*limiter, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	lm := &limiter{}
	for i, c := range l.caps() {
		burst, perWindow := BucketShape(c, l.Fill)
		ps := perWindow / c.Window.Seconds()
		lim := rate.NewLimiter(rate.Limit(ps), burst)
		lim.SetBurstAt(now, burst) // anchor the bucket (full) at now
		lm.buckets[i] = &bucket{cap: c, burst: burst, perSecond: ps, perWindow: perWindow,
			ceiling: windowCeiling(c, l.Fill, burst), lim: lim, log: newSpendLog(c.Window, now)}
	}
	if spent != nil {
		lm.seed(spent, now)
	}
	return lm, nil
}

// delay returns how long from now until b can give n units.
func (b *bucket) delay(now time.Time, n int) time.Duration {
	var d time.Duration
	if b.blockedUntil.After(now) {
		d = b.blockedUntil.Sub(now)
	}
	tokens := b.lim.TokensAt(now)
	if need := float64(n) - tokens; need > 0 {
		secs := need / b.perSecond
		td := time.Duration(math.Ceil(secs*1e9)) + time.Nanosecond
		if secs > float64(math.MaxInt64/int64(time.Second)/2) {
			td = time.Duration(math.MaxInt64 / 2)
		}
		d = max(d, td)
	}
	return d
}

// WaitError is returned when a request would have to wait for the client's
// rate limiter past its context's deadline; it matches ErrRateLimited.
type WaitError struct {
	Endpoint string
	Bucket   string        // the bucket that needs the longest wait
	Delay    time.Duration // the wait that was needed
	// Budget is the client's retry budget (WithRetryBudget) when the wait
	// would have passed it rather than the context's deadline.
	Budget time.Duration
}

func (e *WaitError) Error() string {
	past := "past the context deadline"
	if e.Budget > 0 {
		past = fmt.Sprintf("past this command's retry budget of %s (try again later)", e.Budget)
	}
	return fmt.Sprintf("exchange: %s: rate limit bucket %s needs a wait of %s, %s", e.Endpoint, e.Bucket, e.Delay.Round(time.Millisecond), past)
}

// Is matches ErrRateLimited.
func (e *WaitError) Is(target error) bool { return target == ErrRateLimited }

// wait blocks on clk until every bucket in costs can give its units, then
// takes them all at one instant. It fails at once with a *WaitError when the
// wait would pass ctx's deadline, and with a plain error when a cost can
// never be met (more than a bucket's burst).
func (lm *limiter) wait(ctx context.Context, clk Clock, endpoint string, costs []cost) error {
	return lm.waitMax(ctx, clk, endpoint, costs, 0, 0)
}

// waitMax is wait that also fails at once with a *WaitError naming budget
// when the wait would be longer than maxWait (0: no such bound).
func (lm *limiter) waitMax(ctx context.Context, clk Clock, endpoint string, costs []cost, maxWait, budget time.Duration) error {
	var waited time.Duration
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		lm.mu.Lock()
		if lm.retired {
			lm.mu.Unlock()
			return fmt.Errorf("%s: %w", endpoint, ErrRetired)
		}
		now := clk.Now()
		var (
			longest time.Duration
			which   bucketID
		)
		for _, c := range costs {
			b := lm.buckets[c.b]
			if c.n > b.burst {
				lm.mu.Unlock()
				return fmt.Errorf("exchange: %s: %d units exceed the burst %d of rate limit bucket %s (cap %s); send smaller batches",
					endpoint, c.n, b.burst, c.b, b.cap)
			}
			if d := b.delay(now, c.n); d > longest {
				longest, which = d, c.b
			}
		}
		if longest == 0 {
			for _, c := range costs {
				b := lm.buckets[c.b]
				b.lim.ReserveN(now, c.n) // tokens are there: no delay
				b.admitted += uint64(c.n)
				b.log.add(now, int64(c.n))
			}
			if lm.admitHook != nil {
				lm.admitHook(now, costs)
			}
			lm.mu.Unlock()
			return nil
		}
		lm.mu.Unlock()
		if dl, ok := ctx.Deadline(); ok && now.Add(longest).After(dl) {
			return &WaitError{Endpoint: endpoint, Bucket: which.String(), Delay: longest}
		}
		if maxWait > 0 && waited+longest > maxWait {
			return &WaitError{Endpoint: endpoint, Bucket: which.String(), Delay: longest, Budget: budget}
		}
		if err := clk.Sleep(ctx, longest); err != nil {
			return err
		}
		waited += longest
	}
}

// isGeneral reports whether id is an area's general bucket.
func isGeneral(id bucketID) bool {
	return id == bDataGeneral || id == bCatalogGeneral || id == bCLOBGeneral
}

// block stops the buckets of a throttled endpoint from giving units before
// until: its own buckets, or the area's general bucket when it has no
// bucket of its own. A 429 on POST /orders thus never holds back a cancel,
// and a 429 on POST /books never holds back the other reads.
func (lm *limiter) block(costs []cost, until time.Time) {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	specific := false
	for _, c := range costs {
		specific = specific || !isGeneral(c.b)
	}
	for _, c := range costs {
		if specific && isGeneral(c.b) {
			continue
		}
		b := lm.buckets[c.b]
		if until.After(b.blockedUntil) {
			b.blockedUntil = until
		}
	}
}

// available returns how many units b can give at now (0 while blocked).
func (lm *limiter) availableLocked(id bucketID, now time.Time) int {
	b := lm.buckets[id]
	if b.blockedUntil.After(now) {
		return 0
	}
	t := b.lim.TokensAt(now)
	if t < 0 {
		return 0
	}
	return int(math.Floor(t))
}

// Budget is what the order endpoints' buckets can take right now.
type Budget struct {
	Orders  int // orders one or more POST /orders may carry now
	Cancels int // DELETE /order calls that may be sent now
}

// BucketSnapshot is the state of one rate-limit bucket, for metrics.
type BucketSnapshot struct {
	Name         string
	Cap          Cap
	Burst        int       // bucket size
	RatePerSec   float64   // refill rate
	Tokens       float64   // tokens at the snapshot time
	BlockedUntil time.Time // zero unless a 429 blocked it
	Admitted     uint64    // units taken since the client was made
}

func (lm *limiter) budget(now time.Time) Budget {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	return Budget{
		Orders:  min(lm.availableLocked(bPostOrderBurst, now), lm.availableLocked(bPostOrderSustained, now)),
		Cancels: min(lm.availableLocked(bDeleteOrderBurst, now), lm.availableLocked(bDeleteOrderSustained, now)),
	}
}

func (lm *limiter) snapshot(now time.Time) []BucketSnapshot {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	out := make([]BucketSnapshot, numBuckets)
	for i, b := range lm.buckets {
		out[i] = BucketSnapshot{
			Name: bucketID(i).String(), Cap: b.cap, Burst: b.burst, RatePerSec: b.perSecond,
			Tokens: b.lim.TokensAt(now), BlockedUntil: b.blockedUntil, Admitted: b.admitted,
		}
	}
	return out
}

// reads returns how many requests the order-book API's general bucket can
// give at now: the budget every order-book read (books, order reads, the
// builder-trade history) shares with the orders and cancels.
func (lm *limiter) reads(now time.Time) int {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	return lm.availableLocked(bCLOBGeneral, now)
}

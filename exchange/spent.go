package exchange

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Spent is what a client's rate-limit buckets admitted in their windows up
// to At: what a process hands to the next one so that, across a restart,
// every sliding window of every cap holds at most fill × the cap, as the
// buckets' own windows do. (*Client).Spent
// takes it, WithSpent starts a new client from it, and docs/protocol.md
// ("Across restarts") has the math.
//
// A Final Spent (from Retire) says the client admitted nothing after At. A
// Spent that is not final, the one a process saves while it runs, leaves
// open that it admitted more until it died, at any time up to the new
// client's start: as much as each bucket could give from its Tokens at At
// (at most Burst at once and PerSecond after). The zero Spent is the
// extreme case: nothing is known, so every bucket is taken to have spent
// all it could in the last window.
type Spent struct {
	At      time.Time
	Final   bool
	Buckets []BucketSpent
}

// BucketSpent is one bucket's part of a Spent: its shape, its tokens at the
// Spent's At and the units it admitted in its window before.
type BucketSpent struct {
	Name      string // the bucket's name (BucketSnapshot.Name)
	Cap       Cap    // the cap; Units cover (At − Cap.Window, At]
	Burst     int
	PerSecond float64
	Tokens    float64 // at At; negative while the bucket owes a wait
	// Units are the units admitted, oldest first. Each entry's At is no
	// earlier than the admissions it counts (those after the previous
	// entry's At): the history is rounded late, never early.
	Units []SpentUnits
}

// SpentUnits is N units admitted no later than At.
type SpentUnits struct {
	At time.Time
	N  int64
}

// ErrRetired is returned by every request of a client after Retire.
var ErrRetired = errors.New("exchange: client retired: it admits no more requests")

// Validate checks that sp can seed a client: known shapes, finite numbers,
// non-negative units in time order. Unknown bucket names are not an error
// (WithSpent ignores them).
func (sp *Spent) Validate() error {
	for _, b := range sp.Buckets {
		switch {
		case b.Burst < 0:
			return fmt.Errorf("exchange: spent: bucket %s: burst %d", b.Name, b.Burst)
		case math.IsNaN(b.PerSecond) || math.IsInf(b.PerSecond, 0) || b.PerSecond < 0:
			return fmt.Errorf("exchange: spent: bucket %s: rate %v", b.Name, b.PerSecond)
		case math.IsNaN(b.Tokens) || math.IsInf(b.Tokens, 0):
			return fmt.Errorf("exchange: spent: bucket %s: tokens %v", b.Name, b.Tokens)
		}
		for i, u := range b.Units {
			if u.N < 0 {
				return fmt.Errorf("exchange: spent: bucket %s: %d units at %s", b.Name, u.N, u.At)
			}
			if i > 0 && u.At.Before(b.Units[i-1].At) {
				return fmt.Errorf("exchange: spent: bucket %s: units out of time order at %s", b.Name, u.At)
			}
		}
	}
	return nil
}

// WithSpent starts the client's buckets from a previous process's Spent
// instead of full: each bucket gets exactly what it may still admit at the
// client's start so that no window of its cap, counting the units sp
// records (and, unless sp is final, what the previous process may have
// admitted after sp.At), holds more than fill × the cap. The units are kept, so
// the client's own Spent carries them on to the process after it.
func WithSpent(sp Spent) Option {
	return func(c *Client) error {
		if err := sp.Validate(); err != nil {
			return err
		}
		c.spent = &sp
		return nil
	}
}

// Spent returns what the client's buckets admitted in their windows up to
// now (the client's clock), for the next process. Take it periodically and
// save it; it is not final (see Retire).
func (c *Client) Spent() Spent { return c.lim.spent(c.clock, false) }

// Retire stops the client for good: every later request fails with
// ErrRetired. It returns the final Spent: nothing is admitted after its At.
func (c *Client) Retire() Spent { return c.lim.spent(c.clock, true) }

// seed starts every bucket from sp at now: the units sp records go into the
// spend logs, then (unless sp is final) what each bucket of the previous
// process may have admitted after sp.At, then every bucket's tokens are set
// to what its log leaves.
func (lm *limiter) seed(sp *Spent, now time.Time) {
	byName := make(map[string]*BucketSpent, len(sp.Buckets))
	for i := range sp.Buckets {
		byName[sp.Buckets[i].Name] = &sp.Buckets[i]
	}
	for i, b := range lm.buckets {
		prev := byName[bucketID(i).String()]
		if prev != nil {
			for _, u := range prev.Units {
				if u.N > 0 {
					b.log.add(minTime(u.At, now), u.N)
				}
			}
		}
		if !sp.Final {
			b.addUnknown(prev, sp.At, now)
		}
		b.setTokens(now, b.remaining(now))
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// addUnknown records what the previous process's bucket may have admitted
// after its last record at `at` and before now: its tokens at `at` plus the
// refill since (at most its burst) at once at now, and its refill rate
// over the part of (at, now] that a window reaching now can see. A bucket
// the record lacks (or the zero Spent) is taken to have been full at `at`,
// with this bucket's shape.
func (b *bucket) addUnknown(prev *BucketSpent, at, now time.Time) {
	burst, perSecond, tokens := float64(b.burst), b.perSecond, float64(b.burst)
	if prev != nil {
		burst, perSecond, tokens = float64(prev.Burst), prev.PerSecond, prev.Tokens
	}
	since := max(now.Sub(at), 0)
	if at.IsZero() {
		since = b.cap.Window
	}
	lump := min(burst, tokens+perSecond*since.Seconds())
	if lump > 0 {
		b.log.add(now, int64(math.Ceil(lump)))
	}
	b.log.addStream(now, min(since, b.cap.Window), perSecond)
}

// remaining returns the most tokens b may hold at now given the units its
// log holds: for every window [a, a+W] that reaches now, the logged units
// in [a, now] plus what the bucket can admit from now to a+W (its tokens
// plus r·(a+W−now)) must stay within the window ceiling T = fill·C (not
// the cap C: windows that straddle a restart get the same margin as the
// bucket's own, B + r·W = T), so
//
//	tokens ≤ T − r·W + r·(now − a) − logged[a, now]
//
// for each a in [now − W, now]; the minimum is at a slot's end. It is at
// most the burst, and at least −r·W (after a wait of W no logged unit is in
// any window the bucket's next admission is in).
func (b *bucket) remaining(now time.Time) float64 {
	slack := b.ceiling - b.perWindow
	t := float64(b.burst)
	var sum float64
	b.log.each(now, func(end time.Time, units int64) {
		sum += float64(units)
		t = min(t, slack+b.perSecond*now.Sub(end).Seconds()-sum)
	})
	return max(t, -b.perWindow)
}

// setTokens makes b hold exactly t tokens at now (t ≤ burst, t ≥ −r·W),
// through the limiter's explicit-time calls only: full at an anchor shortly
// before now, less the whole units that make up the shortfall, so that the
// refill from the anchor to now brings it to t (or a hair below: the
// anchor rounds to the nanosecond toward now).
func (b *bucket) setTokens(now time.Time, t float64) {
	burst := float64(b.burst)
	if t >= burst {
		return
	}
	take := math.Ceil(burst - t)
	frac := t - (burst - take) // in [0, 1)
	anchor := now.Add(-time.Duration(frac / b.perSecond * 1e9))
	b.lim.SetBurstAt(anchor, b.burst)
	for take > 0 {
		n := min(take, burst)
		b.lim.ReserveN(anchor, int(n))
		take -= n
	}
}

// spent takes the Spent of every bucket at clk's now, under the lock, so
// that At is at or after every admission it counts; with retire it also
// stops all later admissions.
func (lm *limiter) spent(clk Clock, retire bool) Spent {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	now := clk.Now()
	if retire {
		lm.retired = true
	}
	sp := Spent{At: now, Final: lm.retired, Buckets: make([]BucketSpent, 0, numBuckets)}
	for i, b := range lm.buckets {
		bs := BucketSpent{Name: bucketID(i).String(), Cap: b.cap, Burst: b.burst, PerSecond: b.perSecond, Tokens: b.lim.TokensAt(now)}
		b.log.each(now, func(end time.Time, units int64) {
			bs.Units = append(bs.Units, SpentUnits{At: end, N: units})
		})
		for l, r := 0, len(bs.Units)-1; l < r; l, r = l+1, r-1 { // oldest first
			bs.Units[l], bs.Units[r] = bs.Units[r], bs.Units[l]
		}
		sp.Buckets = append(sp.Buckets, bs)
	}
	return sp
}

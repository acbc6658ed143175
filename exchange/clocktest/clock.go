package clocktest

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock is a manual fake clock. The zero value is not usable; call New.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	seq     uint64
	waiters []*waiter
	changed chan struct{} // closed and replaced whenever waiters change
}

type waiter struct {
	at  time.Time
	seq uint64
	ch  chan time.Time
	fn  func() // AfterFunc's: called in its own goroutine instead of a send on ch
}

// New returns a clock that reads start until it is moved.
func New(start time.Time) *Clock {
	return &Clock{now: start, changed: make(chan struct{})}
}

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives the clock's time once it reaches
// Now()+d. d <= 0 fires at once.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.addLocked(d)
	return w.ch
}

// AfterFunc calls f in its own goroutine once the clock reaches Now()+d
// (at once for d <= 0). The waiter is registered before AfterFunc returns.
// stop removes it and reports whether f was still pending: false once f has
// been called or stopped.
func (c *Clock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	if d <= 0 {
		go f()
		return func() bool { return false }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	w := &waiter{at: c.now.Add(d), seq: c.seq, fn: f}
	c.waiters = append(c.waiters, w)
	c.notifyLocked()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, x := range c.waiters {
			if x == w {
				c.removeLocked(w)
				return true
			}
		}
		return false
	}
}

// Sleep blocks until the clock reaches Now()+d or ctx is done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	w := c.addLocked(d)
	c.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		c.removeLocked(w)
		c.mu.Unlock()
		return ctx.Err()
	}
}

func (c *Clock) addLocked(d time.Duration) *waiter {
	c.seq++
	w := &waiter{at: c.now.Add(d), seq: c.seq, ch: make(chan time.Time, 1)}
	if d <= 0 {
		w.ch <- c.now
		return w
	}
	c.waiters = append(c.waiters, w)
	c.notifyLocked()
	return w
}

func (c *Clock) removeLocked(w *waiter) {
	for i, x := range c.waiters {
		if x == w {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			c.notifyLocked()
			return
		}
	}
}

func (c *Clock) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Advance moves the clock forward by d (d < 0 is ignored) and wakes every
// waiter whose deadline has come, earliest first.
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(c.now.Add(d))
}

// Set moves the clock to t if t is after the current time.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.setLocked(t)
	}
}

func (c *Clock) setLocked(t time.Time) {
	c.now = t
	sort.Slice(c.waiters, func(i, j int) bool {
		if !c.waiters[i].at.Equal(c.waiters[j].at) {
			return c.waiters[i].at.Before(c.waiters[j].at)
		}
		return c.waiters[i].seq < c.waiters[j].seq
	})
	n := 0
	for _, w := range c.waiters {
		if w.at.After(t) {
			break
		}
		if w.fn != nil {
			go w.fn()
		} else {
			w.ch <- t
		}
		n++
	}
	if n > 0 {
		c.waiters = append(c.waiters[:0], c.waiters[n:]...)
		c.notifyLocked()
	}
}

// AdvanceToNext moves the clock to the earliest pending deadline and wakes
// the waiters due then. It reports false, without moving, when nobody waits.
func (c *Clock) AdvanceToNext() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return false
	}
	next := c.waiters[0].at
	for _, w := range c.waiters[1:] {
		if w.at.Before(next) {
			next = w.at
		}
	}
	c.setLocked(next)
	return true
}

// Waiters returns how many sleepers and After channels are pending.
func (c *Clock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// BlockUntil waits until at least n waiters are pending or ctx is done.
func (c *Clock) BlockUntil(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		if len(c.waiters) >= n {
			c.mu.Unlock()
			return nil
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

package daemon

import (
	"sync"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// rateSample is how many order and cancel units the client's rate limiter
// had let out (BucketSnapshot.Admitted of post_order_burst and
// delete_order_burst) at one time.
type rateSample struct {
	at      time.Time
	orders  uint64
	cancels uint64
}

// sampleOf reads a sample from bucket snapshots taken at now.
func sampleOf(now time.Time, buckets []exchange.BucketSnapshot) rateSample {
	s := rateSample{at: now}
	for _, b := range buckets {
		switch b.Name {
		case bucketPostBurst:
			s.orders = b.Admitted
		case bucketDeleteBurst:
			s.cancels = b.Admitted
		}
	}
	return s
}

// rateMeter keeps samples of the order and cancel counts, at least gap
// apart, for keep, so that the status can say how many units left in the
// last window of each cap. The daemon adds one after every cycle; the status
// handler reads it from another goroutine.
type rateMeter struct {
	mu      sync.Mutex
	gap     time.Duration
	keep    time.Duration
	samples []rateSample // oldest first
}

// newRateMeter starts with first (the counts when the client was made,
// zero) and keeps samples for keep.
func newRateMeter(first rateSample, keep time.Duration) *rateMeter {
	return &rateMeter{gap: time.Second, keep: keep, samples: []rateSample{first}}
}

// add records s, unless it is less than gap after the last sample. Samples
// older than keep are dropped, except the newest of them, which starts the
// longest window.
func (m *rateMeter) add(s rateSample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.samples); n > 0 && s.at.Sub(m.samples[n-1].at) < m.gap {
		return
	}
	m.samples = append(m.samples, s)
	cut := s.at.Add(-m.keep)
	drop := 0
	for drop+1 < len(m.samples) && !m.samples[drop+1].at.After(cut) {
		drop++
	}
	if drop > 0 {
		m.samples = append(m.samples[:0], m.samples[drop:]...)
	}
}

// base returns the sample that starts a window of length w ending at now:
// the newest one at or before now − w, else (the daemon is younger than w,
// or w is longer than keep) the oldest one kept.
func (m *rateMeter) base(now time.Time, w time.Duration) rateSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	cut := now.Add(-w)
	best := m.samples[0]
	for _, s := range m.samples {
		if s.at.After(cut) {
			break
		}
		best = s
	}
	return best
}

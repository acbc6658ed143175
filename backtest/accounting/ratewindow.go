package accounting

import (
	"fmt"
	"time"
)

// RateCaps are the exchange's caps on orders and cancels sent (spec, Limits:
// POST /order and DELETE /order, burst and sustained windows).
type RateCaps struct {
	Orders10s, Orders10m   int
	Cancels10s, Cancels10m int
}

// DefaultRateCaps returns the spec's numbers: 2400 per 10 s and 24000 per
// 10 minutes, for orders and for cancels.
func DefaultRateCaps() RateCaps {
	return RateCaps{Orders10s: 2400, Orders10m: 24000, Cancels10s: 2400, Cancels10m: 24000}
}

// windowPeak tracks the largest number of events in any sliding window of a
// fixed length. It holds the times of the events inside the current window
// only.
type windowPeak struct {
	width time.Duration
	times []int64 // unix nanos, oldest first, from head
	head  int
	peak  int
	total int
}

func (w *windowPeak) add(t time.Time) {
	ns := t.UnixNano()
	cut := ns - int64(w.width)
	for w.head < len(w.times) && w.times[w.head] <= cut {
		w.head++
	}
	if w.head > 1024 && w.head*2 > len(w.times) {
		n := copy(w.times, w.times[w.head:])
		w.times = w.times[:n]
		w.head = 0
	}
	w.times = append(w.times, ns)
	w.total++
	w.peak = max(w.peak, len(w.times)-w.head)
}

// RateUse is one rate cap's use: the most sent in any window against the cap.
type RateUse struct {
	Name   string
	Window time.Duration
	Peak   int
	Cap    int
	Total  int
}

// Fraction is Peak / Cap (0 without a cap).
func (r RateUse) Fraction() float64 {
	if r.Cap <= 0 {
		return 0
	}
	return float64(r.Peak) / float64(r.Cap)
}

// String formats the use for the summary: "orders/10s 12 of 2400 (0.5%)".
func (r RateUse) String() string {
	return fmt.Sprintf("%s/%s %d of %d (%.1f%%)", r.Name, WindowLabel(r.Window), r.Peak, r.Cap, 100*r.Fraction())
}

func WindowLabel(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

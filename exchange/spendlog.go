package exchange

import (
	"math"
	"time"
)

// spendSlots is how many slots a bucket's spend log has per window. The log
// rounds every admission up to the end of its slot, so the budget a
// successor derives from it (see remaining) can come out short by at most
// the refill of one slot, r·Window/spendSlots: 0.1 % of the cap.
const spendSlots = 1000

// spendLog is the units one bucket admitted in its last window, in slots
// of d nanoseconds: slot i holds the units admitted in ((i−1)·d, i·d]
// (Unix nanoseconds), and the ring keeps the newest len(n) slots, those
// whose end can still lie inside a window that reaches the present.
type spendLog struct {
	d      int64   // slot width, ns
	window int64   // the bucket's window, ns
	head   int64   // index of the newest slot
	n      []int64 // units of slot i at n[i mod len(n)], for head−len(n) < i ≤ head
}

func newSpendLog(window time.Duration, now time.Time) *spendLog {
	d := max(int64(window)/spendSlots, 1)
	s := &spendLog{d: d, window: int64(window), n: make([]int64, int64(window)/d+2)}
	s.head = s.slotOf(now.UnixNano())
	return s
}

// slotOf returns the slot that holds an admission at Unix nanoseconds ns.
func (s *spendLog) slotOf(ns int64) int64 {
	q := ns / s.d
	if ns%s.d > 0 {
		q++ // round up: the slot ends at or after ns
	}
	return q
}

func (s *spendLog) at(i int64) *int64 {
	size := int64(len(s.n))
	return &s.n[((i%size)+size)%size]
}

// add records units admitted at t.
func (s *spendLog) add(t time.Time, units int64) {
	i := s.slotOf(t.UnixNano())
	size := int64(len(s.n))
	if i > s.head {
		if i-s.head >= size {
			clear(s.n)
		} else {
			for j := s.head + 1; j <= i; j++ {
				*s.at(j) = 0
			}
		}
		s.head = i
	}
	if i <= s.head-size {
		return // older than any window that reaches the present
	}
	*s.at(i) += units
}

// each calls fn for every non-empty slot whose end lies in [now − window,
// now], newest first, with the slot's end (clamped to now: a slot that ends
// later was admitted no later than now) and its units.
func (s *spendLog) each(now time.Time, fn func(end time.Time, units int64)) {
	nowNs := now.UnixNano()
	from := nowNs - s.window
	for i := s.head; i > s.head-int64(len(s.n)); i-- {
		end := i * s.d
		if end < from {
			return
		}
		u := *s.at(i)
		if u == 0 {
			continue
		}
		fn(time.Unix(0, min(end, nowNs)), u)
	}
}

// addStream records what a bucket of refill rate perSecond may have
// admitted in (now − span, now] on top of a burst: one unit at now and one
// every 1/perSecond before it, so that every interval [a, now] with
// now − a ≤ span holds at least perSecond·(now − a) of them. Each slot gets
// the points that fall into it, so nothing is rounded up per slot.
func (s *spendLog) addStream(now time.Time, span time.Duration, perSecond float64) {
	if span <= 0 || perSecond <= 0 {
		return
	}
	// points(age) is the number of points younger than age: ages k/r, k ≥ 0.
	points := func(age int64) int64 {
		if age <= 0 {
			return 0
		}
		return int64(math.Ceil(perSecond * float64(age) / 1e9))
	}
	nowNs := now.UnixNano()
	top := s.slotOf(nowNs)
	for i := top; ; i-- {
		young := max(nowNs-i*s.d, 0) // age of the slot's end
		old := min(nowNs-(i-1)*s.d, int64(span))
		if young >= old {
			return
		}
		if n := points(old) - points(young); n > 0 {
			s.add(time.Unix(0, min(i*s.d, nowNs)), n)
		}
	}
}

package strategy

import (
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

func TestMarkoutTracker(t *testing.T) {
	var mk MarkoutTracker
	buyYes := OwnFill{Outcome: Yes, Side: exchange.Buy, Price: 0.48, Size: 10, Time: t0}
	sellNo := OwnFill{Outcome: No, Side: exchange.Sell, Price: 0.55, Size: 4, Time: t0}
	mk.Add(buyYes)
	mk.Add(sellNo)
	if got := mk.Measure(t0.Add(999*time.Millisecond), 0.6, nil); len(got) != 0 {
		t.Fatalf("before 1 s: %+v", got)
	}
	// At 1.5 s (the first cycle at or after 1 s) the fair value is 0.50:
	// YES 0.02 above our buy (+0.2); NO worth 0.50, 0.05 below our sale (+0.2).
	got := mk.Measure(t0.Add(1500*time.Millisecond), 0.50, nil)
	if len(got) != 2 || got[0].Horizon != 0 || got[1].Horizon != 0 || math.Abs(got[0].Value-0.2) > 1e-9 || math.Abs(got[1].Value-0.2) > 1e-9 {
		t.Fatalf("1 s markouts %+v", got)
	}
	if again := mk.Measure(t0.Add(1500*time.Millisecond), 0.50, nil); len(again) != 0 {
		t.Fatalf("measured twice: %+v", again)
	}
	// At 60 s it is 0.40: the buy −0.8, the sale −0.2; the 10 s ones come due too.
	got = mk.Measure(t0.Add(time.Minute), 0.40, got[:0])
	if len(got) != 4 || got[2].Horizon != 2 || math.Abs(got[2].Value+0.8) > 1e-9 || math.Abs(got[3].Value+0.2) > 1e-9 {
		t.Fatalf("60 s markouts %+v", got)
	}
	for h := range MarkoutHorizons {
		if mk.Pending(h) != 0 {
			t.Errorf("horizon %d: %d pending", h, mk.Pending(h))
		}
	}
	// Per share at 1 s: (0.2 + 0.2) / 14.
	if m, n := mk.Recent(0, 20); n != 2 || math.Abs(m-0.4/14) > 1e-12 {
		t.Fatalf("recent at 1 s: %v over %d", m, n)
	}
	if m, n := mk.Recent(2, 1); n != 1 || math.Abs(m-(-0.2/4)) > 1e-12 {
		t.Fatalf("last one at 60 s: %v over %d", m, n)
	}
}

// TestMarkoutTrackerWindow: Recent averages the last window fills only,
// across the ring's wrap.
func TestMarkoutTrackerWindow(t *testing.T) {
	var mk MarkoutTracker
	for i := range 300 {
		price := 0.5
		if i >= 290 {
			price = 0.6 // the last ten bought 0.1 too high
		}
		mk.Add(OwnFill{Outcome: Yes, Side: exchange.Buy, Price: price, Size: 1, Time: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	mk.Measure(t0.Add(2*time.Second), 0.5, nil)
	if m, n := mk.Recent(0, 10); n != 10 || math.Abs(m+0.1) > 1e-12 {
		t.Errorf("last 10: %v over %d, want −0.1 over 10", m, n)
	}
	if m, n := mk.Recent(0, 20); n != 20 || math.Abs(m+0.05) > 1e-12 {
		t.Errorf("last 20: %v over %d, want −0.05 over 20", m, n)
	}
	if _, n := mk.Recent(0, 1000); n != 256 {
		t.Errorf("a window past the ring averaged %d", n)
	}
	if _, n := mk.Recent(5, 10); n != 0 {
		t.Errorf("an unknown horizon averaged %d", n)
	}
	if h, ok := MarkoutHorizonIndex(10 * time.Second); !ok || h != 1 {
		t.Errorf("10 s is horizon %d, %v", h, ok)
	}
}

// The mid-to-mid markout leaves out the half spread: a buy at 0.48 with
// the mid at 0.50 that the mid then leaves at 0.50 has a realized spread of
// +0.02 a share and a mid-to-mid markout of 0; when the mid falls to 0.47
// the realized spread is −0.01 and the mid-to-mid −0.03 (a NO sale mirrors
// it). A fill with no mid has none.
func TestMarkoutTrackerMidToMid(t *testing.T) {
	var mk MarkoutTracker
	mk.Add(OwnFill{Outcome: Yes, Side: exchange.Buy, Price: 0.48, Size: 10, Time: t0, Mid: 0.50})
	mk.Add(OwnFill{Outcome: No, Side: exchange.Sell, Price: 0.52, Size: 10, Time: t0, Mid: 0.50})
	mk.Add(OwnFill{Outcome: Yes, Side: exchange.Buy, Price: 0.48, Size: 10, Time: t0})
	got := mk.Measure(t0.Add(time.Second), 0.50, nil)
	if len(got) != 3 || !got[0].HasMid || got[0].MidValue != 0 || math.Abs(got[0].Value-0.2) > 1e-9 || got[2].HasMid {
		t.Fatalf("1 s: %+v", got)
	}
	got = mk.Measure(t0.Add(10*time.Second), 0.47, nil)
	if len(got) != 3 || math.Abs(got[0].Value+0.1) > 1e-9 || math.Abs(got[0].MidValue+0.3) > 1e-9 ||
		math.Abs(got[1].MidValue+0.3) > 1e-9 || math.Abs(got[1].Value+0.1) > 1e-9 {
		t.Fatalf("10 s: %+v", got)
	}
}

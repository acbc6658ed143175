package loop

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// liveBids counts the venue's live BUY orders on token.
func (v *fakeVenue) liveBuys(token string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, o := range v.orders {
		if o.AssetID == token && o.Side == exchange.Buy && o.Status == exchange.StatusLive {
			n++
		}
	}
	return n
}

// TestLoopPausesTheSweptSide: a fill that took all the depth at our bid
// pauses the bid from the cycle that finds it (the fill is given to the
// market's state before planning) until pause_for has passed; the ask
// stays.
func TestLoopPausesTheSweptSide(t *testing.T) {
	r := newRig(t, nil, nil)
	model, err := strategy.WithAdverse(r.l.cfg.Params.Model, strategy.AdverseParams{PauseFraction: 1, PauseFor: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.l.SetParams(Params{Model: model, Tolerance: r.l.cfg.Params.Tolerance}); err != nil {
		t.Fatal(err)
	}
	_ = r.l.Start(context.Background())
	r.cycle(t)
	if r.v.liveBuys("yes") != 1 || r.v.liveBuys("no") != 1 {
		t.Fatalf("live bids: %d YES, %d NO; want 1 and 1", r.v.liveBuys("yes"), r.v.liveBuys("no"))
	}
	step := func(yesBid string) {
		r.clock.Advance(time.Second)
		r.v.setBook("yes", yesBid, "0.52", r.clock.Now())
		r.v.setBook("no", "0.48", "0.52", r.clock.Now())
		r.cycle(t)
	}
	r.v.fill("yes", exchange.Buy, "10") // the whole order; the book's bids at 0.48 are gone
	step("0.46")                        // the loop finds the fill: pause_for runs from now
	for i := 0; i < 5; i++ {            // 0 to 4 s after it was found
		if n := r.v.liveBuys("yes"); n != 0 {
			t.Fatalf("%d s after the sweep: %d live YES bids, want 0 (paused)", i, n)
		}
		if n := r.v.liveBuys("no"); n != 1 {
			t.Fatalf("%d s after the sweep: %d live NO bids, want 1 (the ask side is not paused)", i, n)
		}
		step("0.46")
	}
	if n := r.v.liveBuys("yes"); n != 1 {
		t.Fatalf("after pause_for: %d live YES bids, want 1", n)
	}
}

// TestLoopReportsMarkouts: the loop measures each fill against the fair
// value at the first cycle at or after 1 s, 10 s and 60 s, and reports it
// once.
func TestLoopReportsMarkouts(t *testing.T) {
	r := newRig(t, nil, nil)
	var reports reportLog
	r.l.obs = &reports
	_ = r.l.Start(context.Background())
	r.cycle(t)
	r.v.fill("yes", exchange.Buy, "4") // our bid at 0.48
	var got [strategy.NumMarkoutHorizons][]float64
	mid := "0.50"
	for i := 1; i <= 61; i++ {
		r.clock.Advance(time.Second)
		if i == 5 {
			mid = "0.47" // YES 0.46/0.48, NO 0.52/0.54: fair 0.47
		}
		bid, ask := "0.48", "0.52"
		if mid == "0.47" {
			bid, ask = "0.46", "0.48"
			r.v.setBook("no", "0.52", "0.54", r.clock.Now())
		} else {
			r.v.setBook("no", "0.48", "0.52", r.clock.Now())
		}
		r.v.setBook("yes", bid, ask, r.clock.Now())
		reports = reports[:0]
		r.cycle(t)
		for _, m := range reports[0].Markouts {
			if m.Fill.Size != 4 || m.Fill.Outcome != strategy.Yes || m.Fill.Side != exchange.Buy {
				t.Fatalf("markout of %+v", m.Fill)
			}
			got[m.Horizon] = append(got[m.Horizon], m.Value)
			if want := r.clock.Now(); !m.At.Equal(want) {
				t.Errorf("markout at %s, want %s", m.At, want)
			}
			if due := m.Fill.Time.Add(strategy.MarkoutHorizons[m.Horizon]); m.At.Before(due) {
				t.Errorf("horizon %s measured at %s, before %s", strategy.MarkoutHorizons[m.Horizon], m.At, due)
			}
		}
	}
	// Found at 1 s: the 1 s markout at 2 s (fair 0.50, +0.02 × 4), the
	// others after the fall to 0.47 (−0.01 × 4).
	want := [strategy.NumMarkoutHorizons]float64{0.08, -0.04, -0.04}
	for h := range got {
		if len(got[h]) != 1 || math.Abs(got[h][0]-want[h]) > 1e-9 {
			t.Errorf("horizon %s: markouts %v, want [%v]", strategy.MarkoutHorizons[h], got[h], want[h])
		}
	}
}

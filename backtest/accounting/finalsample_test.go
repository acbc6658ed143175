package accounting

import (
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

// A run whose last event falls exactly on a sampling instant must report
// the same drawdown, last series row and last total as the same run shifted
// off the sampling grid: the final sample includes the events at its
// instant.
func TestAccumulatorFinalSampleIncludesLastEvents(t *testing.T) {
	type fill struct {
		at          time.Duration // after the first book
		price, size string
	}
	cases := []struct {
		name   string
		fills  []fill
		end    time.Duration
		wantDD string
	}{
		// Two taker buys above the mid 0.50: PnL −0.5 after the first,
		// −1.135 after the second, which lands on the 1 s sample.
		{"second fill on the sample", []fill{{500 * time.Millisecond, "0.60", "5"}, {time.Second, "0.627", "5"}}, time.Second, "1.135"},
		// Both fills on the sample instant: no sample ever saw them.
		{"both fills on the sample", []fill{{time.Second, "0.60", "5"}, {time.Second, "0.627", "5"}}, time.Second, "1.135"},
		{"fills on a later sample", []fill{{1500 * time.Millisecond, "0.60", "5"}, {3 * time.Second, "0.627", "5"}}, 3 * time.Second, "1.135"},
	}
	run := func(t *testing.T, shift time.Duration, fills []fill, end time.Duration) *Results {
		t.Helper()
		acc := NewAccumulator(AccumulatorConfig{Interval: time.Second})
		a := acc.Token("X")
		a.OnBook(fixture.Sec(0), top(t, "0.40", "0.60"))
		for _, f := range fills {
			a.OnFill(fillmodel.Fill{OrderID: "o", Side: exchange.Buy, Price: fixture.Fx(t, f.price), Size: fixture.Fx(t, f.size),
				Time: fixture.Sec(0).Add(f.at + shift), Taker: true})
		}
		r, err := acc.Finish(fixture.Sec(0).Add(end + shift))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on := run(t, 0, c.fills, c.end)
			off := run(t, 400*time.Millisecond, c.fills, c.end)
			for _, r := range []*Results{on, off} {
				if !r.Total.PnL.Equal(fixture.Dec("-1.135")) {
					t.Fatalf("PnL %s, want -1.135", r.Total.PnL)
				}
			}
			if !on.MaxDrawdown.Equal(off.MaxDrawdown) || !on.MaxDrawdown.Equal(fixture.Dec(c.wantDD)) {
				t.Errorf("max drawdown %s on the sampling instant, %s shifted by 400 ms; want %s", on.MaxDrawdown, off.MaxDrawdown, c.wantDD)
			}
			// The last row of the series and of the totals is the end state.
			last := on.Series[len(on.Series)-1]
			if !last.Position.Equal(fixture.Dec("10")) || last.Fills != 2 || !last.PnL.Equal(on.Total.PnL) {
				t.Errorf("last series row %s: position %s, fills %d, PnL %s; want 10, 2, %s", last.Time.Sub(fixture.T0), last.Position, last.Fills, last.PnL, on.Total.PnL)
			}
			if tot := on.Totals[len(on.Totals)-1]; !tot.PnL.Equal(on.Total.PnL) {
				t.Errorf("last total row PnL %s, want %s", tot.PnL, on.Total.PnL)
			}
			if !on.Tokens[0].MaxAbsPos.Equal(fixture.Dec("10")) {
				t.Errorf("max |position| %s, want 10", on.Tokens[0].MaxAbsPos)
			}
			// One row per sampling instant, none repeated.
			for i := 1; i < len(on.Totals); i++ {
				if !on.Totals[i].Time.After(on.Totals[i-1].Time) {
					t.Errorf("totals %d and %d at %s and %s", i-1, i, on.Totals[i-1].Time, on.Totals[i].Time)
				}
			}
		})
	}
}

// Sharpe and Sortino are computed only from at least MinRatioSamples
// changes covering MinRatioSpan; the sample count is reported either way.
// A run of exactly an hour qualifies: its first interval's change (from
// zero at the start) counts, so an hour of 30 s samples is 120 changes
// covering the hour, not 119 covering 59m30s.
func TestAccumulatorRatiosNeedEnoughSamples(t *testing.T) {
	cases := []struct {
		name      string
		interval  time.Duration
		span      time.Duration
		samples   int
		undefined bool
	}{
		{"2.5 minutes of 1 s", time.Second, 150 * time.Second, 150, true},
		{"an hour of 1 s", time.Second, time.Hour, 3600, false},
		{"30 minutes of 1 min", time.Minute, 30 * time.Minute, 30, true},
		{"59 minutes of 1 min", time.Minute, 59 * time.Minute, 59, true},
		// the README's backtest: one hour sampled every 30 s
		{"an hour of 30 s", 30 * time.Second, time.Hour, 120, false},
		{"an hour of 1 min", time.Minute, time.Hour, 60, false},
		{"2 hours of 1 min", time.Minute, 2 * time.Hour, 120, false},
		{"an hour of 2 min", 2 * time.Minute, time.Hour, 30, false},
		{"58 minutes of 2 min", 2 * time.Minute, 58 * time.Minute, 29, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			acc := NewAccumulator(AccumulatorConfig{Interval: c.interval})
			a := acc.Token("X")
			a.OnBook(fixture.T0, top(t, "0.40", "0.60"))
			a.OnFill(fillmodel.Fill{OrderID: "o", Side: exchange.Buy, Price: fixture.Fx(t, "0.45"), Size: fixture.Fx(t, "10"), Time: fixture.T0})
			// The mid walks 0.50, 0.51, 0.50, … so that the PnL varies.
			for at, i := c.interval, 0; at < c.span; at, i = at+c.interval/2, i+1 {
				bid := []string{"0.40", "0.42"}[i%2]
				a.OnBook(fixture.T0.Add(at), top(t, bid, "0.60"))
			}
			r, err := acc.Finish(fixture.T0.Add(c.span))
			if err != nil {
				t.Fatal(err)
			}
			if r.RatioSamples != c.samples || r.RatiosTooFew() != c.undefined {
				t.Fatalf("samples %d, too few %v; want %d, %v", r.RatioSamples, r.RatiosTooFew(), c.samples, c.undefined)
			}
			if got := math.IsNaN(r.Sharpe) && math.IsNaN(r.Sortino); got != c.undefined {
				t.Errorf("Sharpe %v Sortino %v, want undefined %v", r.Sharpe, r.Sortino, c.undefined)
			}
			h := HeadlineOf(r)
			if h.RatioSamples != c.samples || h.RatioInterval != c.interval {
				t.Errorf("headline: %d samples of %s", h.RatioSamples, h.RatioInterval)
			}
		})
	}
}

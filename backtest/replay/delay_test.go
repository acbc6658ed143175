package replay

import (
	"context"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// In a market with a matching delay (seconds_delay), a placement answers
// "delayed" after the order latency, and the order can match only once the
// delay has passed: a trade through its price before then does not fill
// it, one after does.
func TestReplayMarketDelay(t *testing.T) {
	evs := append(twoBooks(t),
		tradeAt(1000, synthetic.TokY, "0.45", "50", exchange.Sell),
		bookAt(t, 1500, synthetic.TokY, []string{"0.45:5"}, []string{"0.52:100"}),
		tradeAt(4000, synthetic.TokY, "0.45", "50", exchange.Sell),
		bookAt(t, 5000, synthetic.TokY, []string{"0.44:100"}, []string{"0.52:100"}))
	for _, delay := range []time.Duration{0, 3 * time.Second} {
		m := synthetic.Market()
		m.PlacementDelay = delay
		acc := accounting.NewAccumulator(accounting.AccumulatorConfig{})
		r, err := New(&SliceSource{Events: evs}, Config{Markets: []strategy.Market{m},
			Matcher: fillmodel.MatcherConfig{Latency: fillmodel.Latency{Order: fillmodel.Constant(50 * time.Millisecond)}}}, acc)
		if err != nil {
			t.Fatal(err)
		}
		var s Signer
		it, id := item(t, &s, synthetic.TokY, exchange.Buy, "0.45", "10")
		res := place(t, r, it)
		want := exchange.PlaceLive
		if delay > 0 {
			want = exchange.PlaceDelayed
		}
		if !res[0].Success || res[0].Status != want {
			t.Fatalf("delay %s: placement %+v, want %s", delay, res[0], want)
		}
		if got := r.Now(); !got.Equal(fixture.Ms(50)) {
			t.Errorf("delay %s: the placement answered at %s, want after the order latency (50ms)", delay, got.Sub(fixture.T0))
		}
		if err := r.Sleep(context.Background(), 2*time.Second); err != nil {
			t.Fatal(err)
		}
		filledEarly := orderOf(t, r, id).SizeMatched.IsPositive()
		if filledEarly != (delay == 0) {
			t.Errorf("delay %s: filled by the trade at 1 s: %v", delay, filledEarly)
		}
		if err := r.Sleep(context.Background(), 2500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if o := orderOf(t, r, id); !o.SizeMatched.IsPositive() {
			t.Errorf("delay %s: not filled by the trade at 4 s: %+v", delay, o)
		}
	}
}

// The scan takes a market's delay, neg-risk flag, question and slug from
// its metas.
func TestScanMarketDelayAndNames(t *testing.T) {
	evs := append([]recording.Event{recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.Ms(0)}, TokenID: synthetic.TokY,
		Market: synthetic.Cond, SecondsDelay: 2, NegRisk: true, Question: "Will it?", Slug: "will-it"})}, twoBooks(t)...)
	scan, err := ScanMarkets(&SliceSource{Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	if len(scan.Markets) != 1 {
		t.Fatalf("markets %+v", scan.Markets)
	}
	m := scan.Markets[0]
	if m.PlacementDelay != 2*time.Second || !m.NegRisk || m.Question != "Will it?" || m.Slug != "will-it" {
		t.Errorf("market %+v", m)
	}
}

package paper

import (
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

// The paper venue accounts rewards as the backtest does, against the live
// books: by hand, on the setup's books.
func TestPaperRewards(t *testing.T) {
	terms, err := fillmodel.NewRewardTerms(decimal.NewFromInt(3), decimal.NewFromInt(5), decimal.NewFromInt(1440)) // 1 a minute
	if err != nil {
		t.Fatal(err)
	}
	v, _, clk := newPaperSetup(t, fillmodel.ModeQueue, func(c *Config) { c.Markets[0].Rewards = terms })
	mustBooks(t, v, fixture.Yes, fixture.No)
	mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.5", "40"), fixture.Item(fixture.No, exchange.Buy, "0.48", "40"))
	clk.Add(30 * time.Second)
	mustBooks(t, v, fixture.Yes, fixture.No) // the orders rest now
	if st := v.Stats(); st.RewardSamples != 0 {
		t.Fatalf("sampled within the first minute: %+v", st)
	}
	clk.Add(2 * time.Minute)
	mustBooks(t, v, fixture.Yes, fixture.No) // samples at 1:00 and 2:00
	st := v.Stats()
	// YES mid 0.51. Ours: YES bid 0.50 × 40 and YES ask 0.52 (NO bid 0.48)
	// × 40, each 0.01 away: (2/3)² × 40 = 160/9 a side, Q_min 160/9. The
	// NO book mirrors the YES book: the YES book alone is the competition.
	// Q_one 0.50 × 100 → 400/9 and 0.49 × 50 → 50/9; Q_two 0.52 × 100 →
	// 400/9: Q_min max(400/9, (450/9)/3) = 400/9. Share 160/560 = 2/7 of
	// two pools of 1: floor(2 × 10⁶ × 2/7) base units.
	if st.RewardSamples != 2 || st.Reward.Earned != 571_428 || math.Abs(st.Reward.Ours-2*160.0/9) > 1e-9 || math.Abs(st.Reward.Total-2*560.0/9) > 1e-9 {
		t.Fatalf("reward %+v over %d samples, want 0.571428 over 2", st.Reward, st.RewardSamples)
	}
	if st.Fills != 0 {
		t.Fatalf("%d fills: the hand count assumed none", st.Fills)
	}
}

// A market without a program is not sampled.
func TestPaperNoRewards(t *testing.T) {
	v, _, clk := newPaperSetup(t, fillmodel.ModeQueue, nil)
	mustBooks(t, v, fixture.Yes, fixture.No)
	mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.5", "40"))
	clk.Add(3 * time.Minute)
	mustBooks(t, v, fixture.Yes, fixture.No)
	if st := v.Stats(); st.RewardSamples != 0 || st.Reward != (fillmodel.RewardScore{}) {
		t.Fatalf("%+v", st)
	}
}

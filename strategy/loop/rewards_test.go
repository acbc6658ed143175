package loop

import (
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// The loop integrates each market's estimated reward income over the time
// between cycles, at the share measured at the later cycle.
func TestObserveRewards(t *testing.T) {
	d := decimal.RequireFromString
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	terms := strategy.RewardTerms{MaxSpread: d("3"), MinSize: d("20"), DailyRate: d("1440")}
	mr := &marketRun{m: strategy.Market{ConditionID: "0xa", Rewards: terms}, hasBook: [2]bool{true, true}}
	lv := func(p, s string) []exchange.PriceLevel { return []exchange.PriceLevel{{Price: d(p), Size: d(s)}} }
	mr.snap = strategy.Snapshot{Rewards: terms, Tick: d("0.01")}
	// Our YES bid 0.49 × 100 rests in the book with another maker's 100 at
	// the same price; the ask 0.51 × 100 is the other maker's only. The NO
	// book mirrors the YES book. Ours: (2/3)² × 100 one-sided → Q_min
	// 400/27; the book less ours: 400/9 a side → 400/9. Share 1/4.
	mr.snap.Tokens[strategy.Yes] = strategy.TokenBook{Bids: lv("0.49", "200"), Asks: lv("0.51", "100")}
	mr.snap.Tokens[strategy.No] = strategy.TokenBook{Bids: lv("0.49", "100"), Asks: lv("0.51", "200")}
	mr.snap.Open = []strategy.OpenOrder{{ID: "a", Outcome: strategy.Yes, Side: exchange.Buy, Price: d("0.49"), Size: d("100")}}
	for i, at := range []time.Duration{0, time.Minute, 3 * time.Minute} {
		mr.snap.Now = t0.Add(at)
		mr.observeRewards(t0.Add(at))
		want := 1440 * 0.25 * at.Seconds() / 86400 // 1 a minute × 1/4
		if got := mr.rew.earned; math.Abs(got-want) > 1e-9 {
			t.Fatalf("cycle %d: earned %v, want %v", i, got, want)
		}
	}
	st := Status{Markets: []MarketStatus{{Rewards: mr.rewardStatus()}, {}}}
	earned, daily, share := st.RewardTotals()
	if !earned.Equal(d("0.75")) || math.Abs(daily-360) > 1e-9 || math.Abs(share-0.25) > 1e-12 {
		t.Fatalf("totals %s %v %v", earned, daily, share)
	}
	// A book without a mid adds nothing and restarts the clock.
	mr.snap.Tokens[strategy.Yes].Asks = nil
	mr.snap.Now = t0.Add(10 * time.Minute)
	mr.observeRewards(mr.snap.Now)
	if mr.rew.earned != 0.75 || mr.rew.has {
		t.Fatalf("without a mid: %+v", mr.rew)
	}
}

package main

import (
	"context"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/scoreboard"
)

// TestScoreboardDefaultsEarnRewards: the scoreboard's rewards scenario,
// run with the default configuration (as mmbot scoreboard runs it), earns
// at least 0.5% of the liquidity-reward score for every model. With
// reward-aware quoting off by default, the models' 10-share quotes never
// reached the scenario's 20-share minimum: glft and avellaneda scored
// 0.000%, bands (whose wider levels were larger) 0.128%.
func TestScoreboardDefaultsEarnRewards(t *testing.T) {
	sc, err := scoreboard.Pick(scoreboard.Scenarios(scoreboard.Options{Seed: 1, Markets: 3, Duration: 5 * time.Minute}), []string{"rewards"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := scoreboard.Run(context.Background(), scoreboard.Config{Scenarios: sc, Models: []string{"bands", "avellaneda", "glft"},
		Modes: []fillmodel.Mode{fillmodel.ModeQueue}, Build: scoreboardSetup, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Logf("%s %s: reward share %.3f%%, reward %s, PnL %s, fills %d", r.Scenario, r.Model, 100*r.RewardShare, r.Reward, r.PnL, r.Fills)
		if !(r.RewardShare >= 0.005) {
			t.Errorf("%s %s: reward share %.3f%% with the defaults, want at least 0.5%%", r.Scenario, r.Model, 100*r.RewardShare)
		}
	}
}

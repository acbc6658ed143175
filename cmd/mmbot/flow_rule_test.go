package main

import (
	"context"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/scoreboard"
)

// TestFlowRuleDefendsInformedFlow: under the informed scenario, the default
// configuration's fills are less informed (a better 60 s mid-to-mid
// markout) and its PnL no worse than the same configuration with the flow
// rule off (strategy.adverse.flow_ticks = 0), in every seed of a short
// run. Without the rule the two runs are the same.
func TestFlowRuleDefendsInformedFlow(t *testing.T) {
	t.Parallel()
	sc, err := scoreboard.Pick(scoreboard.Scenarios(scoreboard.Options{Seed: 1, Markets: 3, Duration: 15 * time.Minute}), []string{"informed"})
	if err != nil {
		t.Fatal(err)
	}
	build := func(model string, settings []string) (*scoreboard.Setup, error) {
		if model == "touch-noflow" {
			return scoreboardSetup("touch", append(append([]string{}, settings...), "strategy.adverse.flow_ticks=0"))
		}
		return scoreboardSetup(model, settings)
	}
	const seeds = 3
	rows, err := scoreboard.Run(context.Background(), scoreboard.Config{Scenarios: sc, Models: []string{"touch", "touch-noflow"},
		Modes: []fillmodel.Mode{fillmodel.ModeQueue}, Build: build, Seed: 1, Seeds: seeds, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	type fig struct{ mid, pnl float64 }
	got := map[string][seeds]fig{}
	for _, r := range rows {
		f := got[r.Model]
		f[r.Rep] = fig{100 * r.MidMarkout60s, r.PnL.InexactFloat64()}
		got[r.Model] = f
	}
	with, without := got["touch"], got["touch-noflow"]
	for k := range seeds {
		t.Logf("seed %d: mid-to-mid %.3f ¢ with the rule, %.3f without; PnL %.2f, %.2f", k, with[k].mid, without[k].mid, with[k].pnl, without[k].pnl)
		if !(with[k].mid > without[k].mid+0.1) {
			t.Errorf("seed %d: 60 s mid-to-mid markout %.3f ¢ with the flow rule, %.3f without: want better by more than 0.1 ¢", k, with[k].mid, without[k].mid)
		}
		if with[k].pnl < without[k].pnl {
			t.Errorf("seed %d: PnL %.2f with the flow rule, %.2f without", k, with[k].pnl, without[k].pnl)
		}
	}
}

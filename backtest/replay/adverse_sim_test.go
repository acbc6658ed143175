package replay

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// TestAdverseRulesOnInformedFlow replays a recording of the simulated
// exchange with 60% informed takers (the recording of
// TestInventoryAwareModelHoldsLessRisk: seed 7, one market, takers at 0.5 a
// second, two hours; ADVERSE_MINUTES shortens or lengthens it) through the
// bands and Avellaneda–Stoikov models, each without and with WithAdverse at
// its defaults, and logs PnL, fills and the markouts per fill. It asserts
// only that the rules act (fewer fills with them); the numbers are in
// docs/strategies.md. Opt-in: ADVERSE_BT=1 (minutes of replay).
func TestAdverseRulesOnInformedFlow(t *testing.T) {
	if os.Getenv("ADVERSE_BT") == "" {
		t.Skip("opt-in: ADVERSE_BT=1 replays two hours four times")
	}
	d := 2 * time.Hour
	if m := os.Getenv("ADVERSE_MINUTES"); m != "" {
		if n, err := time.ParseDuration(m + "m"); err == nil && n > 0 {
			d = n
		}
	}
	path := filepath.Join(t.TempDir(), "informed.mmrec")
	simRecording(t, path, 7, 1, d, sim.FlowConfig{Informed: 0.6, TakerRate: 0.5})
	rd, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	scan, err := ScanMarkets(rd)
	_ = rd.Close()
	if err != nil || len(scan.Markets) != 1 {
		t.Fatalf("scan: %+v, %v", scan, err)
	}
	run := func(model strategy.Model) *accounting.Results {
		chk, err := risk.NewChecker(risk.Limits{MaxOrderSize: fixture.Dec("100")})
		if err != nil {
			t.Fatal(err)
		}
		cfg := RunConfig{
			Loop: loop.Config{Params: loop.Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 1, SizeFrac: 0.1}, Checker: chk},
				Cycle: time.Second, TapeLimit: 200, Estimators: strategy.DefaultEstimatorParams()},
			Replay: Config{Markets: scan.Markets, Matcher: fillmodel.MatcherConfig{Seed: 1, Latency: fillmodel.Latency{Order: fillmodel.Constant(50 * time.Millisecond),
				Cancel: fillmodel.Constant(50 * time.Millisecond), Data: fillmodel.Constant(20 * time.Millisecond)}}},
		}
		rd, err := recording.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		res, err := Run(context.Background(), rd, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	bands, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.01}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	as, err := strategy.NewAvellaneda(strategy.AvellanedaParams{Gamma: 0.1, K: 1.5, Horizon: 24 * time.Hour, InventoryUnit: 10,
		Ladder: strategy.Ladder{Size: 10, Levels: 1, MinSpread: 0.01, MaxSpread: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	variants := []struct {
		name string
		p    strategy.AdverseParams
	}{{"defaults", strategy.DefaultAdverseParams()}}
	if os.Getenv("ADVERSE_VARIANTS") != "" {
		only := func(f func(p *strategy.AdverseParams)) strategy.AdverseParams {
			p := strategy.AdverseParams{MarkoutHorizon: 10 * time.Second}
			f(&p)
			return p
		}
		def := strategy.DefaultAdverseParams()
		variants = append(variants,
			struct {
				name string
				p    strategy.AdverseParams
			}{"backoff only", only(func(p *strategy.AdverseParams) { p.BackoffTicks, p.BackoffFor = def.BackoffTicks, def.BackoffFor })},
			struct {
				name string
				p    strategy.AdverseParams
			}{"pause only", only(func(p *strategy.AdverseParams) { p.PauseFraction, p.PauseFor = def.PauseFraction, def.PauseFor })},
			struct {
				name string
				p    strategy.AdverseParams
			}{"through only", only(func(p *strategy.AdverseParams) { p.ThroughCooling = def.ThroughCooling })},
			struct {
				name string
				p    strategy.AdverseParams
			}{"jump only", only(func(p *strategy.AdverseParams) {
				p.JumpCooling, p.JumpK, p.JumpMinTicks = def.JumpCooling, def.JumpK, def.JumpMinTicks
			})},
			struct {
				name string
				p    strategy.AdverseParams
			}{"markout only", only(func(p *strategy.AdverseParams) {
				p.MarkoutFills, p.MarkoutThreshold, p.WidenTicks, p.WidenMultiple, p.WidenCapTicks = def.MarkoutFills, def.MarkoutThreshold, def.WidenTicks, def.WidenMultiple, def.WidenCapTicks
			})},
		)
	}
	for _, c := range []struct {
		name  string
		model strategy.Model
	}{{"bands", bands}, {"avellaneda", as}} {
		plain := run(c.model)
		logResult(t, c.name, "without", plain)
		for _, v := range variants {
			p := v.p
			wrapped, err := strategy.WithAdverse(c.model, p)
			if err != nil {
				t.Fatal(err)
			}
			tally := &actionTally{p: p}
			with := run(tallied{wrapped, tally})
			logResult(t, c.name, v.name, with)
			t.Logf("%-10s %-14s rules at %d quotes: pulled through %d, jump %d; paused %d; backed off %d; widened by markouts %d",
				c.name, v.name, tally.n, tally.through, tally.jump, tally.paused, tally.backoff, tally.widened)
			if v.name == "defaults" && with.Total.Fills >= plain.Total.Fills {
				t.Errorf("%s: %d fills with the rules, %d without: the rules did not act", c.name, with.Total.Fills, plain.Total.Fills)
			}
		}
	}
}

func logResult(t *testing.T, model, rules string, r *accounting.Results) {
	t.Helper()
	line := ""
	for _, m := range r.Markouts {
		line += " " + m.Horizon.String() + " " + formatF(m.Mean)
	}
	t.Logf("%-10s %-14s PnL %8s  fills %4d  volume %6s  mean markout per fill:%s", model, rules, r.Total.PnL.Round(2),
		r.Total.Fills, r.Total.Volume.Round(0), line)
}

func formatF(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

// actionTally counts what the rules did at each quote.
type actionTally struct {
	p                                          strategy.AdverseParams
	n, through, jump, paused, backoff, widened int
}

// tallied counts the rules' actions around a model.
type tallied struct {
	strategy.Model
	t *actionTally
}

func (m tallied) Quote(dst []strategy.Desired, s *strategy.Snapshot, st *strategy.MarketState) []strategy.Desired {
	if st != nil {
		a, t := m.t.p.Action(&st.Adverse, s), m.t
		t.n++
		switch {
		case a.Pulled == "through":
			t.through++
		case a.Pulled == "jump":
			t.jump++
		case a.Paused[0] || a.Paused[1]:
			t.paused++
		case a.Widened > 0:
			t.widened++
		case a.Away[0] > 0 || a.Away[1] > 0:
			t.backoff++
		}
	}
	return m.Model.Quote(dst, s, st)
}

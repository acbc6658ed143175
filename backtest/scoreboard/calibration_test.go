package scoreboard

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/risk"
)

// naiveBuild is testBuild with the naive quoter's position limit set to
// limit shares a market (testBuild's is 40).
func naiveBuild(limit int64) func(string, []string) (*Setup, error) {
	return func(model string, settings []string) (*Setup, error) {
		s, err := testBuild(model, settings)
		if err != nil {
			return nil, err
		}
		lim := decimal.NewFromInt(limit)
		checker, err := risk.NewChecker(risk.Limits{MaxMarketShares: lim, MaxTotalShares: lim.Mul(decimal.NewFromInt(10)),
			MaxOrderSize: decimal.NewFromInt(100), MaxOpenPerMarket: 8, MaxOpenTotal: 100, Collar: decimal.RequireFromString("0.1")})
		if err != nil {
			return nil, err
		}
		s.Loop.Params.Checker = checker
		s.MaxPosition, s.MaxTotalPosition = lim, lim.Mul(decimal.NewFromInt(10))
		return s, nil
	}
}

// calibrate replays the naive quoter on the named scenarios (seeds × 3
// markets × d) and returns, by scenario, the intervals over the seeds of
// its PnL and of its 60 s mid-to-mid markout in cents.
func calibrate(tb testing.TB, build func(string, []string) (*Setup, error), seeds int, d time.Duration, modes []fillmodel.Mode, names ...string) (pnls, mids map[string]interval) {
	tb.Helper()
	sc, err := Pick(Scenarios(Options{Seed: 1, Markets: 3, Duration: d}), names)
	if err != nil {
		tb.Fatal(err)
	}
	rows, err := Run(context.Background(), Config{Scenarios: sc, Models: []string{"naive"},
		Modes: modes, Build: build, Seed: 1, Seeds: seeds, Workers: 2})
	if err != nil {
		tb.Fatal(err)
	}
	pnls, mids = map[string]interval{}, map[string]interval{}
	for _, s := range sc {
		pnls[s.Name] = tInterval(perSeed(rows, s.Name, "naive", pnl))
		mids[s.Name] = tInterval(perSeed(rows, s.Name, "naive", func(r *Row) float64 { return 100 * r.MidMarkout60s }))
	}
	return pnls, mids
}

// The calibration of the simulated market (docs/scoreboard.md, "The
// market"): a naive quoter — one tick inside the touch on both sides, no
// fair value of its own, no inventory skew, no adverse-selection rule —
// earns in calm and loses in informed and jumps: the 95% intervals over
// the seeds of its PnL and of its 60 s mid-to-mid markout lie below zero.
// With a position limit of 40 shares a market it earns in calm and loses
// under informed flow; news that leaks to the informed (jumps) loads it
// only as far as its limit, so jumps are measured with the configuration's
// default limit of 500, which lets the informed load it before each jump.
func TestCalibrationNaive(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 30 market-hours")
	}
	queue := []fillmodel.Mode{fillmodel.ModeQueue}
	pnls, mids := calibrate(t, naiveBuild(40), 5, 30*time.Minute, queue, "calm", "informed")
	big, bigMids := calibrate(t, naiveBuild(500), 5, 30*time.Minute, queue, "jumps")
	pnls["jumps"], mids["jumps"] = big["jumps"], bigMids["jumps"]
	for _, name := range []string{"calm", "informed", "jumps"} {
		p, m := pnls[name], mids[name]
		t.Logf("%s: PnL %.2f ± %.2f, 60 s mid-to-mid %.3f ± %.3f ¢ over %d seeds", name, p.mean, p.half, m.mean, m.half, p.n)
	}
	if v := pnls["calm"].verdict(); v != "won" {
		t.Errorf("calm: the naive quoter's PnL %.2f ± %.2f is not above zero", pnls["calm"].mean, pnls["calm"].half)
	}
	for _, name := range []string{"informed", "jumps"} {
		if p := pnls[name]; p.verdict() != "**lost**" {
			t.Errorf("%s: the naive quoter's PnL %.2f ± %.2f is not below zero", name, p.mean, p.half)
		}
		if m := mids[name]; m.verdict() != "**lost**" {
			t.Errorf("%s: the naive quoter's 60 s mid-to-mid markout %.3f ± %.3f ¢ is not below zero", name, m.mean, m.half)
		}
	}
}

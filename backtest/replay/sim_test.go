package replay

import (
	"context"
	"math"
	"path/filepath"
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

// simRecording drives the simulated exchange in manual mode for d and
// records its markets into a recording at path through the Writer: one
// meta per token (tick, minimum size, end date, reward terms), then every
// book change and trade the exchange reports through its hooks.
func simRecording(tb testing.TB, path string, seed uint64, markets int, d time.Duration, flow sim.FlowConfig) int {
	tb.Helper()
	var evs []recording.Event
	cfg := sim.Config{Seed: seed, Markets: markets, Manual: true, Start: fixture.T0, Step: 100 * time.Millisecond, NoRateLimits: true, Flow: flow,
		OnBook: func(b sim.BookEvent) {
			for i := range b.Books {
				ob := b.Books[i]
				evs = append(evs, recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: b.Time}, TokenID: ob.AssetID, Market: b.Market,
					Bids: recording.NonNil(ob.Bids), Asks: recording.NonNil(ob.Asks), TickSize: ob.TickSize, MinOrderSize: ob.MinOrderSize}))
			}
		},
		OnTrade: func(t sim.TradeEvent) {
			evs = append(evs, recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: t.Time}, TokenID: t.Token, Market: t.Market,
				Price: t.Price, Size: t.Size, TakerSide: t.Side}))
		},
	}
	ex, err := sim.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	defer ex.Close()
	w, err := recording.NewWriter(path, recording.WithCreated(fixture.T0), recording.WithSource("simulated exchange"), recording.WithCompressionLevel(1))
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = w.Abort() }()
	for _, m := range ex.Catalog().Markets {
		if m.Closed {
			continue
		}
		for _, tok := range m.TokenIDs {
			err := w.Write(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.T0}, TokenID: tok, Market: m.ConditionID, TickSize: m.TickSize,
				MinOrderSize: m.MinOrderSize, EndDate: m.EndDate, RewardMaxSpread: m.Rewards.MaxSpread, RewardMinSize: m.Rewards.MinSize,
				RewardDailyRate: m.Rewards.DailyRate}))
			if err != nil {
				tb.Fatal(err)
			}
		}
	}
	n := 0
	for elapsed := time.Duration(0); elapsed < d; elapsed += time.Minute {
		evs = evs[:0]
		if err := ex.Advance(time.Minute); err != nil {
			tb.Fatal(err)
		}
		for _, e := range evs {
			if err := w.Write(e); err != nil {
				tb.Fatal(err)
			}
			n++
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return n
}

// netInventory returns our net YES position (YES held − NO held) at each
// sample of r, and the per-sample changes of the marked PnL.
func netInventory(r *accounting.Results, yes, no string) (inv, dpnl []float64) {
	pos := map[string]float64{}
	for i, row := range r.Series {
		pos[row.TokenID] = row.Position.InexactFloat64()
		if i+1 == len(r.Series) || !r.Series[i+1].Time.Equal(row.Time) {
			inv = append(inv, pos[yes]-pos[no])
		}
	}
	for i := 1; i < len(r.Totals); i++ {
		dpnl = append(dpnl, r.Totals[i].PnL.Sub(r.Totals[i-1].PnL).InexactFloat64())
	}
	return inv, dpnl
}

func stdDev(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var s float64
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}

// TestInventoryAwareModelHoldsLessRisk replays a recording of the simulated
// exchange with informed takers (60% of them trade toward where the fair
// price is going) through the symmetric bands model and through the
// Avellaneda–Stoikov model with the default parameters: the inventory-aware
// model holds a smaller, less variable inventory, and its PnL varies less
// from minute to minute.
func TestInventoryAwareModelHoldsLessRisk(t *testing.T) {
	if testing.Short() {
		t.Skip("replays two hours twice")
	}
	path := filepath.Join(t.TempDir(), "informed.jsonl.gz")
	simRecording(t, path, 7, 1, 2*time.Hour, sim.FlowConfig{Informed: 0.6, TakerRate: 0.5})
	rd, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	scan, err := ScanMarkets(rd)
	_ = rd.Close()
	if err != nil || len(scan.Markets) != 1 {
		t.Fatalf("scan: %+v, %v", scan, err)
	}
	m := scan.Markets[0]
	run := func(model strategy.Model) (inv, dpnl []float64, res *accounting.Results) {
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
		res, err = Run(context.Background(), rd, cfg)
		if err != nil {
			t.Fatal(err)
		}
		inv, dpnl = netInventory(res, m.TokenIDs[0], m.TokenIDs[1])
		return inv, dpnl, res
	}
	bands, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.01}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	// The defaults of [strategy.avellaneda], as cmd/mmbot builds them, but
	// for a 1 h horizon: at 24 h and the simulator's volatility (σ² about
	// 7e-5 per second, 150 times the prior) γσ²(T−t) is about 0.6 logit, the
	// spread is max_spread wide and the model hardly trades.
	as, err := strategy.NewAvellaneda(strategy.AvellanedaParams{Gamma: 0.1, K: 15, Horizon: time.Hour, InventoryUnit: 10,
		Ladder: strategy.Ladder{Size: 10, Levels: 1, MinSpread: 0.01, MaxSpread: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	bInv, bPnL, bRes := run(bands)
	aInv, aPnL, aRes := run(as)
	t.Logf("bands:      inventory sd %.2f shares, PnL change sd %.4f per minute, PnL %s, %d fills",
		stdDev(bInv), stdDev(bPnL), bRes.Total.PnL.Round(2), bRes.Total.Fills)
	t.Logf("avellaneda: inventory sd %.2f shares, PnL change sd %.4f per minute, PnL %s, %d fills",
		stdDev(aInv), stdDev(aPnL), aRes.Total.PnL.Round(2), aRes.Total.Fills)
	if bRes.Total.Fills < 50 || aRes.Total.Fills < 50 {
		t.Fatalf("too few fills to compare: bands %d, avellaneda %d", bRes.Total.Fills, aRes.Total.Fills)
	}
	if !(stdDev(aInv) < stdDev(bInv)) {
		t.Errorf("inventory sd: avellaneda %.2f, bands %.2f; want avellaneda lower", stdDev(aInv), stdDev(bInv))
	}
	if !(stdDev(aPnL) < stdDev(bPnL)) {
		t.Errorf("PnL sd: avellaneda %.4f, bands %.4f; want avellaneda lower", stdDev(aPnL), stdDev(bPnL))
	}
}

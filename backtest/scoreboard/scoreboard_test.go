package scoreboard

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// testBuild builds bands two and four cents out, 10 shares a side, with a
// position limit of 40 shares: enough to trade, small enough to be tested.
func testBuild(model string, _ []string) (*Setup, error) {
	var m strategy.Model
	var err error
	if model == "naive" {
		m, err = strategy.NewNaive(strategy.NaiveParams{Size: 10})
	} else {
		m, err = strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02, 0.04}, Sizes: []float64{10, 10}})
	}
	if err != nil {
		return nil, err
	}
	lim := decimal.NewFromInt(40)
	checker, err := risk.NewChecker(risk.Limits{MaxMarketShares: lim, MaxTotalShares: lim.Mul(decimal.NewFromInt(10)),
		MaxOrderSize: decimal.NewFromInt(100), MaxOpenPerMarket: 8, MaxOpenTotal: 100, Collar: decimal.RequireFromString("0.1")})
	if err != nil {
		return nil, err
	}
	return &Setup{
		Loop: loop.Config{Params: loop.Params{Model: m, Tolerance: strategy.Tolerance{PriceTicks: 1, SizeFrac: 0.1}, Checker: checker},
			Estimators: strategy.DefaultEstimatorParams(), Cycle: time.Second, MaxBatch: 15, MaxBookAge: time.Minute, TapeLimit: 200},
		Matcher:     fillmodel.MatcherConfig{Latency: fillmodel.Latency{Order: fillmodel.Constant(50 * time.Millisecond)}},
		MaxPosition: lim, MaxTotalPosition: lim.Mul(decimal.NewFromInt(10)),
	}, nil
}

func testScenarios(t *testing.T, names ...string) []Scenario {
	t.Helper()
	sc, err := Pick(Scenarios(Options{Seed: 7, Markets: 3, Duration: 4 * time.Minute}), names)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func render(t *testing.T, workers int, sc []Scenario) ([]Row, string) {
	t.Helper()
	rows, err := Run(context.Background(), Config{Scenarios: sc, Models: []string{"bands", "naive"},
		Modes: []fillmodel.Mode{fillmodel.ModeConservative, fillmodel.ModeQueue}, Build: testBuild, Seed: 1, Seeds: 2, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, &Doc{Command: "test", Default: "bands", Seed: 1, Seeds: 2, Scenarios: sc, Rows: rows}); err != nil {
		t.Fatal(err)
	}
	return rows, b.String()
}

// The table depends on the scenarios and the models only: not on the
// number of workers, not on the run.
func TestRunDeterministic(t *testing.T) {
	sc := testScenarios(t, "calm", "informed", "rewards")
	rows, one := render(t, 1, sc)
	_, many := render(t, 4, sc)
	if one != many {
		t.Fatalf("1 worker and 4 workers differ:\n%s\n---\n%s", one, many)
	}
	_, again := render(t, 4, sc)
	if again != many {
		t.Fatal("two runs with 4 workers differ")
	}
	if len(rows) != 24 {
		t.Fatalf("%d rows, want 3 scenarios × 2 seeds × 2 models × 2 modes", len(rows))
	}
	fills := 0
	for _, r := range rows {
		fills += r.Fills
		if r.Breaches != 0 {
			t.Errorf("%s %s: %d limit breaches", r.Scenario, r.Mode, r.Breaches)
		}
		if (r.Scenario == "rewards") != !math.IsNaN(r.RewardShare) {
			t.Errorf("%s: reward share %v", r.Scenario, r.RewardShare)
		}
	}
	if fills == 0 {
		t.Fatal("no fill in any run: the table measures nothing")
	}
	for _, want := range []string{"| calm | bands (default) | conservative |", "| rewards | naive | queue |", "| informed | loses less than naive |",
		"| calm | 60 s mid-to-mid markout better than naive (¢) |"} {
		if !strings.Contains(one, want) {
			t.Errorf("table lacks %q:\n%s", want, one)
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	sc := testScenarios(t, "jumps")[0]
	a, err := Generate(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("same scenario, different recordings (%d and %d events)", len(a), len(b))
	}
	sc.Seed++
	c, err := Generate(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("another seed, the same recording")
	}
}

// The end-date scenario's markets resolve inside the run, and the recording
// says so at the end date; every event is in time order.
func TestGenerateEndDate(t *testing.T) {
	sc := testScenarios(t, "end-date")[0]
	ev, err := Generate(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	end := Epoch.Add(sc.EndAfter)
	tokens, resolved := map[string]bool{}, map[string]decimal.Decimal{}
	var last time.Time
	for _, e := range ev {
		at := e.Time()
		if at.Before(last) {
			t.Fatalf("event at %s after one at %s", at, last)
		}
		last = at
		if e.Kind != recording.KindMeta {
			if at.After(end) && e.Kind == recording.KindTrade {
				t.Fatalf("a trade at %s, after the end date %s", at, end)
			}
			continue
		}
		if !e.Meta.Resolved {
			tokens[e.Meta.TokenID] = true
			continue
		}
		if !at.Equal(end) {
			t.Errorf("resolution at %s, want the end date %s", at, end)
		}
		resolved[e.Meta.TokenID] = e.Meta.Payout
	}
	if len(tokens) == 0 || len(resolved) != len(tokens) {
		t.Fatalf("%d tokens, %d resolved", len(tokens), len(resolved))
	}
	var sum decimal.Decimal
	for _, p := range resolved {
		sum = sum.Add(p)
	}
	if !sum.Equal(decimal.NewFromInt(int64(len(tokens) / 2))) {
		t.Fatalf("payouts sum to %s over %d markets", sum, len(tokens)/2)
	}
}

func TestPickAndValidate(t *testing.T) {
	all := Scenarios(DefaultOptions)
	want := []string{"calm", "trending", "jumps", "informed", "thin", "end-date", "rewards"}
	if got := Names(all); !reflect.DeepEqual(got, want) {
		t.Fatalf("scenarios %v, want %v", got, want)
	}
	if _, err := Pick(all, []string{"calm", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown name: %v", err)
	}
	got, err := Pick(all, []string{"rewards", "calm"})
	if err != nil || len(got) != 2 || got[0].Name != "calm" {
		t.Fatalf("pick keeps the table order: %v %v", Names(got), err)
	}
	for _, bad := range []Scenario{{Name: "x", Markets: 0, Duration: time.Hour}, {Name: "x", Markets: 1, Duration: time.Second},
		{Name: "x", Markets: 1, Duration: time.Hour, EndAfter: 2 * time.Hour}, {Markets: 1, Duration: time.Hour}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestBreaches(t *testing.T) {
	mk := []strategy.Market{{ConditionID: "c", TokenIDs: [2]string{"y", "n"}}}
	fill := func(tok string, side exchange.Side, size int64) accounting.FillRecord {
		return accounting.FillRecord{TokenID: tok, Side: side, Size: exchange.Fixed(size * 1_000_000)}
	}
	lim := decimal.NewFromInt(30)
	fills := []accounting.FillRecord{
		fill("y", exchange.Buy, 20), // net 20
		fill("n", exchange.Buy, 20), // net 0: a YES and a NO cancel out
		fill("y", exchange.Buy, 31), // net 31: over
		fill("y", exchange.Sell, 1), // net 30: at the limit
		fill("x", exchange.Buy, 99), // another token: not ours
	}
	if n := breaches(fills, mk, lim, decimal.Zero); n != 1 {
		t.Fatalf("%d breaches, want 1", n)
	}
	if n := breaches(fills, mk, decimal.Zero, decimal.NewFromInt(10)); n != 3 {
		t.Fatalf("total limit 10: %d breaches, want 3", n)
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{-0.001, "0.00"}, {-0.006, "-0.01"}, {math.NaN(), "–"}, {math.Inf(1), "–"}, {1.005, "1.00"}, {12.345, "12.35"}} {
		if got := num(c.f, 2); got != c.want {
			t.Errorf("num(%v) = %q, want %q", c.f, got, c.want)
		}
	}
	if got := money(decimal.RequireFromString("-0.001")); got != "0.00" {
		t.Errorf("money(-0.001) = %q", got)
	}
	if got := sd([]float64{1, 3}); got != 1 {
		t.Errorf("sd = %v", got)
	}
}

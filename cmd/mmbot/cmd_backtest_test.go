package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/sweep"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
)

const btCond = "0x00000000000000000000000000000000000000000000000000000000000000b7"

// writeBtRecording writes a 20-minute recording of one market (tokens "Y"
// and "N"): reward terms, books every 200 ms with a random-walk price, a
// taker trade every 2 s.
func writeBtRecording(t *testing.T, path string) {
	t.Helper()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w, err := recording.NewWriter(path, recording.WithCreated(t0), recording.WithCompressionLevel(1))
	if err != nil {
		t.Fatal(err)
	}
	d := decimal.RequireFromString
	for _, tok := range []string{"Y", "N"} {
		if err := w.Write(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: t0}, TokenID: tok, Market: btCond,
			TickSize: d("0.01"), MinOrderSize: d("5"), RewardMaxSpread: d("3"), RewardMinSize: d("10"), RewardDailyRate: d("20")})); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := 0.0
	for i := 1; i <= 20*60*5; i++ {
		at := t0.Add(time.Duration(i) * 200 * time.Millisecond)
		x += rng.NormFloat64() * 0.01
		p := 1 / (1 + math.Exp(-x))
		for k, tok := range []string{"Y", "N"} {
			mid := p
			if k == 1 {
				mid = 1 - p
			}
			bid := math.Floor(mid*100-1) / 100
			ask := math.Ceil(mid*100+1) / 100
			lv := func(price float64) []exchange.PriceLevel {
				return []exchange.PriceLevel{{Price: decimal.NewFromFloat(price).Round(2), Size: decimal.NewFromInt(int64(100 + i%50))}}
			}
			if err := w.Write(recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: at}, TokenID: tok, Market: btCond,
				Bids: lv(bid), Asks: lv(ask), TickSize: d("0.01"), MinOrderSize: d("5")})); err != nil {
				t.Fatal(err)
			}
		}
		if i%10 == 0 {
			side, price := exchange.Buy, math.Ceil(p*100+1)/100
			if rng.IntN(2) == 0 {
				side, price = exchange.Sell, math.Floor(p*100-1)/100
			}
			if err := w.Write(recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: at.Add(time.Millisecond)}, TokenID: "Y",
				Market: btCond, Price: decimal.NewFromFloat(price).Round(2), Size: decimal.NewFromInt(int64(5 + rng.IntN(60))), TakerSide: side})); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

const btConfig = `
[strategy]
model = "bands"
cycle = "1s"

[strategy.bands]
levels = [
  { offset = "0.01", size = "10" },
  { offset = "0.02", size = "10" },
]

[risk]
max_position = "300"
`

// btSetup writes the recording and a config file and returns their paths.
func btSetup(t *testing.T, config string) (rec, cfg string) {
	t.Helper()
	dir := t.TempDir()
	rec, cfg = filepath.Join(dir, "rec.jsonl.gz"), filepath.Join(dir, "mmbot.toml")
	writeBtRecording(t, rec)
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return rec, cfg
}

// runBt runs mmbot with args and returns its exit status and outputs.
func runBt(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code := runMain(e, args)
	return code, out.String(), errb.String()
}

func TestBacktestCommand(t *testing.T) {
	t.Parallel()
	rec, cfg := btSetup(t, btConfig)
	outA, outB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	code, stdout, stderr := runBt("backtest", "-c", cfg, "--data", rec, "--out", outA)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"fill mode  queue (queue model power n=2)", "latency    order 50ms, cancel 50ms, data 20ms",
		"strategy   bands levels 0.01×10 0.02×10 cycle=1s", "reports: " + filepath.Join(outA, "summary.txt")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "fills                  0 ") {
		t.Errorf("the strategy never filled:\n%s", stdout)
	}
	if code, _, stderr := runBt("backtest", "-c", cfg, "--data", rec, "--out", outB); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"summary.txt", "series.csv", "report.html"} {
		a, err := os.ReadFile(filepath.Join(outA, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outB, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same recording and config", name)
		}
		if name == "report.html" && (!bytes.Contains(a, []byte("<svg")) || !bytes.Contains(a, []byte("fill mode: queue"))) {
			t.Errorf("report.html has no plot or no fill mode")
		}
	}
}

func TestBacktestFlagsAndJSON(t *testing.T) {
	t.Parallel()
	rec, cfg := btSetup(t, btConfig)
	code, stdout, stderr := runBt("backtest", "-c", cfg, "--data", rec, "--json", "--fill-model", "optimistic",
		"--latency-order", "uniform:10ms-30ms", "--latency-data", "0s", "--seed", "9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Mode    string `json:"fill_mode"`
		Latency string `json:"latency"`
		Seed    uint64 `json:"seed"`
		Results struct {
			Fills  int             `json:"fills"`
			PnL    decimal.Decimal `json:"pnl"`
			Sharpe *float64        `json:"sharpe"`
		} `json:"results"`
		Tokens []struct {
			Token string `json:"token"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if out.Mode != "optimistic" || out.Latency != "order uniform:10ms-30ms, cancel 50ms, data 0s" || out.Seed != 9 {
		t.Errorf("run description %+v", out)
	}
	if out.Results.Fills == 0 || len(out.Tokens) != 2 {
		t.Errorf("results %+v, tokens %+v", out.Results, out.Tokens)
	}
}

func TestBacktestSweep(t *testing.T) {
	t.Parallel()
	rec, cfg := btSetup(t, btConfig)
	dir := t.TempDir()
	args := []string{"backtest", "-c", cfg, "--data", rec, "--sweep", "offset=0.01,0.02", "--sweep", "levels=1,3",
		"--sweep", "strategy.cycle=1s,2s"}
	code, one, stderr := runBt(append(args, "--workers", "1", "--out", dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// --out's sweep.json is what --json prints, and 2 workers give what 1
	// gave.
	code, two, stderr := runBt(append(args, "--workers", "2", "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if js, err := os.ReadFile(filepath.Join(dir, "sweep.json")); err != nil || string(js) != two {
		t.Errorf("sweep.json of 1 worker (%v) and --json of 2 workers differ:\n%s\n---\n%s", err, js, two)
	}
	lines := strings.Split(strings.TrimSpace(one), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[0], "run  offset  levels  strategy.cycle  pnl") {
		t.Fatalf("table:\n%s", one)
	}
	if !strings.HasPrefix(lines[8], "7    0.02    3       2s") {
		t.Errorf("last row %q, want the grid's last combination", lines[8])
	}
	csv, err := os.ReadFile(filepath.Join(dir, "sweep.csv"))
	if err != nil || !bytes.HasPrefix(csv, []byte("run,offset,levels,strategy.cycle,pnl,")) || bytes.Count(csv, []byte("\n")) != 9 {
		t.Errorf("sweep.csv (%v):\n%s", err, csv)
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep.txt")); err != nil {
		t.Error(err)
	}
	// The rows differ: the parameters reach the strategy.
	if cells := func(l string) string { return strings.Join(strings.Fields(l)[4:], " ") }; cells(lines[1]) == cells(lines[5]) {
		t.Errorf("offsets 0.01 and 0.02 gave the same figures:\n%s", one)
	}
}

func TestBacktestErrors(t *testing.T) {
	t.Parallel()
	rec, cfg := btSetup(t, btConfig)
	asCfg := filepath.Join(t.TempDir(), "as.toml")
	if err := os.WriteFile(asCfg, []byte("[strategy]\nmodel = \"avellaneda\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	otherCfg := filepath.Join(t.TempDir(), "other.toml")
	if err := os.WriteFile(otherCfg, []byte(btConfig+"\n[markets]\ncondition_ids = [\"0x00000000000000000000000000000000000000000000000000000000000000aa\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// levels sweeps the ladder of avellaneda: one row per value
	// (TestStrategyParamsLadder checks the ladder itself).
	code, out, stderr := runBt("backtest", "-c", asCfg, "--data", rec, "--sweep", "levels=1,3", "--json")
	if code != 0 {
		t.Fatalf("levels sweep on avellaneda: exit %d: %s", code, stderr)
	}
	var rows []struct {
		Headline struct {
			Orders int `json:"orders"`
		} `json:"headline"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("levels sweep: %d rows, %v:\n%s", len(rows), err, out)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no data", []string{"-c", cfg}, 2, "--data is required"},
		{"bad sweep", []string{"-c", cfg, "--data", rec, "--sweep", "nonsense=1"}, 2, "unknown sweep key"},
		{"bad sweep syntax", []string{"-c", cfg, "--data", rec, "--sweep", "gamma"}, 2, "want key=v1,v2"},
		{"bad fill model", []string{"-c", cfg, "--data", rec, "--fill-model", "magic"}, 2, "--fill-model"},
		{"bad latency", []string{"-c", cfg, "--data", rec, "--latency-cancel", "soon"}, 2, "--latency-cancel"},
		{"no workers", []string{"-c", cfg, "--data", rec, "--workers", "0"}, 2, "--workers"},
		{"bad sweep value", []string{"-c", cfg, "--data", rec, "--sweep", "gamma=high"}, 2, "sweep gamma=high"},
		{"invalid config value", []string{"-c", cfg, "--data", rec, "--sweep", "strategy.cycle=-1s"}, 1, "strategy.cycle"},
		{"missing recording", []string{"-c", cfg, "--data", rec + ".missing"}, 1, "recording"},
		{"market not recorded", []string{"-c", otherCfg, "--data", rec}, 1, "0x00000000000000000000000000000000000000000000000000000000000000aa is not in the recording"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runBt(append([]string{"backtest"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

func TestProgressText(t *testing.T) {
	for _, tc := range []struct {
		read, total, events int64
		elapsed             time.Duration
		bar                 bool
		want                string
	}{
		{0, 1 << 20, 0, 0, false, "  0.0%  0 B of 1.0 MiB"},
		{1 << 19, 1 << 20, 500_000, time.Second, false, " 50.0%  512.0 KiB of 1.0 MiB  500k events/s  ETA 1s"},
		{3 << 18, 1 << 20, 3_000_000, 2 * time.Second, true, "[======================>       ]  75.0%  768.0 KiB of 1.0 MiB  1.50M events/s  ETA 1s"},
		{1 << 20, 1 << 20, 10, 10 * time.Second, true, "[==============================] 100.0%  1.0 MiB of 1.0 MiB  1 events/s"},
		{2 << 30, 2 << 30, 0, time.Second, false, "100.0%  2.0 GiB of 2.0 GiB  0 events/s"},
	} {
		if got := progressText(tc.read, tc.total, tc.events, tc.elapsed, tc.bar); got != tc.want {
			t.Errorf("progressText(%d, %d, %d, %v, %v)\n got %q\nwant %q", tc.read, tc.total, tc.events, tc.elapsed, tc.bar, got, tc.want)
		}
	}
}

func TestResizeBands(t *testing.T) {
	d := decimal.RequireFromString
	lv := func(pairs ...string) []configs.BandLevel {
		var out []configs.BandLevel
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, configs.BandLevel{Offset: d(pairs[i]), Size: d(pairs[i+1])})
		}
		return out
	}
	for _, tc := range []struct {
		in   []configs.BandLevel
		n    int
		want string // "" for an error
	}{
		{lv("0.01", "10", "0.03", "20"), 1, "[0.01×10]"},
		{lv("0.01", "10", "0.03", "20"), 2, "[0.01×10 0.03×20]"},
		{lv("0.01", "10", "0.03", "20"), 4, "[0.01×10 0.03×20 0.05×20 0.07×20]"},
		{lv("0.02", "5"), 3, "[0.02×5 0.04×5 0.06×5]"},
		{lv("0.02", "5"), 0, ""},
		{nil, 2, ""},
	} {
		out, err := resizeBands(tc.in, tc.n)
		var got string
		if err == nil {
			parts := make([]string, len(out))
			for i, l := range out {
				parts[i] = l.Offset.String() + "×" + l.Size.String()
			}
			got = "[" + strings.Join(parts, " ") + "]"
		}
		if got != tc.want {
			t.Errorf("resizeBands(%v, %d) = %s, %v; want %s", tc.in, tc.n, got, err, tc.want)
		}
	}
	// The input is not modified.
	in := lv("0.01", "10", "0.03", "20")
	out, _ := resizeBands(in, 1)
	out[0].Offset = d("0.5")
	if !in[0].Offset.Equal(d("0.01")) {
		t.Error("resizeBands shares its input")
	}
}

func TestApplySweepKey(t *testing.T) {
	cfg := configs.Defaults()
	cfg.Exchange.EmbeddedSim = true // as the command loads it
	cfg.Strategy.Model = "bands"    // the description below is of bands (the default is glft)
	rs := replaySettings{}
	for _, kv := range [][2]string{{"gamma", "0.3"}, {"k", "2"}, {"a", "0.5"}, {"horizon", "2h"}, {"cycle", "250ms"},
		{"min_spread_ticks", "3"}, {"tolerance", "2"}, {"max_spread", "0.2"}, {"order_size", "7"}, {"offset", "0.02"},
		{"rewards", "true"}, {"fill_model", "conservative"}, {"latency_order", "uniform:1ms-2ms"}, {"latency_cancel", "3ms"},
		{"latency_data", "lognormal:4ms,0.5"}, {"levels", "3"}} {
		if err := applySweepKey(&cfg, &rs, kv[0], kv[1]); err != nil {
			t.Fatalf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
	sc := &cfg.Strategy
	got := describeStrategy(&cfg, sweep.Combo{})
	if want := "bands levels 0.02×7 0.04×7 0.06×7 cycle=250ms rewards"; got != want {
		t.Errorf("bands: %q, want %q", got, want)
	}
	if sc.Avellaneda.Gamma != 0.3 || sc.GLFT.Gamma != 0.3 || sc.Avellaneda.K != 2 || sc.GLFT.K != 2 || sc.GLFT.A != 0.5 ||
		sc.Avellaneda.Horizon.Std() != 2*time.Hour || sc.Avellaneda.MinSpreadTicks != 3 || sc.PriceToleranceTicks != 2 ||
		!sc.Avellaneda.MaxSpread.Equal(decimal.RequireFromString("0.2")) || !sc.OrderSize.Equal(decimal.NewFromInt(7)) {
		t.Errorf("strategy %+v", sc)
	}
	if rs.matcher.Mode != fillmodel.ModeConservative || rs.matcher.Latency.String() != "order uniform:1ms-2ms, cancel 3ms, data lognormal:4ms,0.5" {
		t.Errorf("replay settings %+v", rs.matcher)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("the result does not validate: %v", err)
	}
	for _, kv := range [][2]string{{"gamma", "x"}, {"cycle", "soon"}, {"levels", "two"}, {"offset", "0.0.1"}, {"rewards", "maybe"},
		{"fill_model", "magic"}, {"latency_data", "later"}, {"nope", "1"}} {
		if err := applySweepKey(&cfg, &rs, kv[0], kv[1]); err == nil {
			t.Errorf("%s=%s accepted", kv[0], kv[1])
		}
	}
}

// A recording cut short fails the scan with one line that names the
// command once: "mmbot backtest: recording PATH: scanning for markets: ...",
// not "...: backtest: scanning the recording: ...".
func TestBacktestTruncatedRecordingMessage(t *testing.T) {
	rec, cfg := btSetup(t, btConfig)
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runBt("backtest", "-c", cfg, "--data", rec)
	want := "mmbot backtest: recording " + rec + ": scanning for markets: line "
	if code != 1 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 || doubledPrefix(stderr) != "" ||
		strings.Count(stderr, "backtest:") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line starting %q", code, stderr, want)
	}
}

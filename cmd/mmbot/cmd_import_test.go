package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/importer"
	"github.com/mmbot/mmbot/backtest/recording"
)

const (
	impCond = "0x00000000000000000000000000000000000000000000000000000000000000c1"
	impYes  = "71321045679252212594626385532706912750332728571942532289631379312455583992563"
	impNo   = "52114319501245915516055106046884209969926127482827954674443846427813813222426"
)

// writeCapture writes ten minutes of the market channel of one binary
// market's YES outcome, as a websocket capture holds it: an array frame of
// the first book, then price_change messages every 200 ms (the bid and the
// ask move with a random walk; new shape, with best_bid and best_ask),
// trades every 2 s, now and then a frame of a change and its trade. The
// first five minutes go to dir/ws-1.jsonl, the rest gzipped to
// dir/ws-2.jsonl.gz.
func writeCapture(t *testing.T, dir string) {
	t.Helper()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	rng := rand.New(rand.NewPCG(3, 4))
	var files [2]bytes.Buffer
	line := func(f int, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		files[f].Write(append(b, '\n'))
	}
	type lv struct {
		Price string `json:"price"`
		Size  string `json:"size"`
	}
	cents := func(c int) string { return fmt.Sprintf("0.%02d", c) }
	bid, ask := 49, 51
	line(0, []any{map[string]any{"event_type": "book", "asset_id": impYes, "market": impCond, "timestamp": fmt.Sprint(t0),
		"tick_size": "0.01", "hash": "0x0",
		"bids": []lv{{cents(bid - 1), "300"}, {cents(bid), "200"}}, "asks": []lv{{cents(ask + 1), "300"}, {cents(ask), "200"}}}})
	x := 0.0
	for i := 1; i <= 10*60*5; i++ {
		f := 0
		if i > 5*60*5 {
			f = 1
		}
		ts := fmt.Sprint(t0 + int64(i)*200)
		x += rng.NormFloat64() * 0.02
		mid := 50 + int(math.Round(10*math.Tanh(x/3)))
		nb, na := mid-1, mid+1
		type change struct {
			AssetID string `json:"asset_id"`
			Price   string `json:"price"`
			Size    string `json:"size"`
			Side    string `json:"side"`
			BestBid string `json:"best_bid"`
			BestAsk string `json:"best_ask"`
		}
		var ch []change
		size := fmt.Sprint(150 + rng.IntN(100))
		add := func(price int, side, size string) {
			ch = append(ch, change{impYes, cents(price), size, side, cents(nb), cents(na)})
		}
		if nb != bid {
			add(bid, "BUY", "0")
			add(bid-1, "BUY", "0")
			add(nb-1, "BUY", "300")
		}
		add(nb, "BUY", size)
		if na != ask {
			add(ask, "SELL", "0")
			add(ask+1, "SELL", "0")
			add(na+1, "SELL", "300")
		}
		add(na, "SELL", size)
		bid, ask = nb, na
		pc := map[string]any{"event_type": "price_change", "market": impCond, "price_changes": ch, "timestamp": ts}
		if i%10 != 0 {
			line(f, pc)
			continue
		}
		side, price := "BUY", na
		if rng.IntN(2) == 0 {
			side, price = "SELL", nb
		}
		tr := map[string]any{"event_type": "last_trade_price", "asset_id": impYes, "market": impCond, "price": cents(price),
			"size": fmt.Sprint(5 + rng.IntN(60)), "side": side, "fee_rate_bps": "0", "timestamp": ts}
		if i%20 == 0 {
			line(f, []any{pc, tr})
		} else {
			line(f, pc)
			line(f, tr)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ws-1.jsonl"), files[0].Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(files[1].Bytes())
	_ = zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "ws-2.jsonl.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeCatalog writes a catalog snapshot: a page of GET /markets with the
// market of writeCapture (tokens listed NO first) and another one.
func writeCatalog(t *testing.T, path string) {
	t.Helper()
	market := func(cond, yes, no string) map[string]any {
		return map[string]any{"condition_id": cond, "question": "Will it rain?", "market_slug": "rain", "active": true,
			"accepting_orders": true, "end_date_iso": "2026-06-30T00:00:00Z", "minimum_order_size": 5, "minimum_tick_size": 0.01,
			"rewards": map[string]any{"rates": []any{map[string]any{"asset_address": "0xusdc", "rewards_daily_rate": 20}}, "min_size": 10, "max_spread": 3},
			"tokens":  []any{map[string]any{"token_id": no, "outcome": "No"}, map[string]any{"token_id": yes, "outcome": "Yes"}}}
	}
	page := map[string]any{"data": []any{market(impCond, impYes, impNo), market("0xother", "1", "2")}, "next_cursor": "LTE=", "count": 2}
	b, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mmbot import of a one-outcome capture (two files, one gzipped, by a
// glob) with a catalog and --complement, then mmbot backtest on the
// recording: both outcomes are quoted and filled.
func TestImportThenBacktest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCapture(t, dir)
	catalog := filepath.Join(dir, "markets.json")
	writeCatalog(t, catalog)
	rec := filepath.Join(dir, "rec.jsonl.gz")
	code, stdout, stderr := runBt("import", "--out", rec, "--catalog", catalog, "--complement", "--json", filepath.Join(dir, "ws-*"))
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	var st struct {
		Out string `json:"out"`
		importer.Stats
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	// 3000 changes and 300 trades, 75 of them in a frame with their change.
	if st.Out != rec || st.Messages != 3301 || st.Imported["book"] != 1 || st.Imported["price_change"] != 3000 ||
		st.Imported["last_trade_price"] != 300 || len(st.Skipped) != 0 || st.DerivedBooks != 3001 || st.DerivedTrades != 300 ||
		st.Metas != 2 || len(st.Files) != 2 {
		t.Errorf("stats %+v", st.Stats)
	}
	for _, want := range []string{"imported 3301 messages from 2 files (ws-1.jsonl, ws-2.jsonl.gz) into " + rec,
		"imported: book 1, last_trade_price 300, price_change 3000", "skipped:  none", "derived (--complement): 3001 books, 300 trades",
		"warning: market " + impCond + ": token " + impNo + " has no book of its own"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	h, _, err := recording.ReadAll(rec)
	if err != nil {
		t.Fatal(err)
	}
	if h.Source != "import: ws-1.jsonl, ws-2.jsonl.gz" {
		t.Errorf("source %q", h.Source)
	}

	cfg := filepath.Join(dir, "mmbot.toml")
	if err := os.WriteFile(cfg, []byte(btConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runBt("backtest", "-c", cfg, "--data", rec, "--json")
	if code != 0 {
		t.Fatalf("backtest: exit %d: %s", code, stderr)
	}
	var bt struct {
		Results struct {
			Fills int `json:"fills"`
		} `json:"results"`
		Tokens []struct {
			Token string `json:"token"`
			Fills int    `json:"fills"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(stdout), &bt); err != nil {
		t.Fatalf("backtest --json: %v\n%s", err, stdout)
	}
	if bt.Results.Fills == 0 || len(bt.Tokens) != 2 {
		t.Errorf("backtest results %+v", bt)
	}

	// Without --complement the recording holds one outcome's books: the
	// summary says so and how to derive the other.
	rec1 := filepath.Join(dir, "one.jsonl.gz")
	code, _, stderr = runBt("import", "--out", rec1, "--catalog", catalog, filepath.Join(dir, "ws-*"))
	if code != 0 || !strings.Contains(stderr, "warning: market "+impCond+": only token "+impYes+" has books; a backtest needs both outcomes: import again with --complement") {
		t.Fatalf("import without --complement: exit %d: %s", code, stderr)
	}
}

// Terms from flags instead of a catalog, with --market for the outcomes.
func TestImportFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCapture(t, dir)
	rec := filepath.Join(dir, "rec.jsonl.gz")
	code, _, stderr := runBt("import", "--out", rec, "--market", impCond+":"+impYes+","+impNo, "--complement",
		"--min-size", "15", "--end-date", "2026-07-01", "--reward-daily-rate", "12.5", "--reward-max-spread", "3.5",
		filepath.Join(dir, "ws-1.jsonl"), filepath.Join(dir, "ws-2.jsonl.gz"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, evs, err := recording.ReadAll(rec)
	if err != nil {
		t.Fatal(err)
	}
	m := evs[0].Meta
	if m == nil || m.TokenID != impYes || evs[1].Meta == nil || evs[1].Meta.TokenID != impNo || m.MinOrderSize.String() != "15" ||
		!m.EndDate.Equal(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)) || m.RewardDailyRate.String() != "12.5" ||
		m.RewardMaxSpread.String() != "3.5" || !m.TickSize.IsZero() {
		t.Errorf("first events %+v %+v", evs[0], evs[1])
	}
	if b := evs[2].Book; b == nil || b.TickSize.String() != "0.01" || b.MinOrderSize.String() != "15" {
		t.Errorf("first book %+v", evs[2])
	}
}

// Bad command lines exit 2 with one line; a bad input exits 1, names the
// message and leaves no file.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte(`{"event_type":"book","asset_id":"1","market":"0xm","timestamp":"1772366400000"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rec.jsonl.gz")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--out", out}, 2, "mmbot import: no input: give capture files or glob patterns\n"},
		{[]string{good}, 2, "mmbot import: --out is required\n"},
		{[]string{"--out", out, "--tick", "0.02", good}, 2, "mmbot import: --tick 0.02: want one of 0.1, 0.01, 0.001, 0.0001\n"},
		{[]string{"--out", out, "--min-size", "five", good}, 2, "mmbot import: --min-size \"five\" is not a decimal number\n"},
		{[]string{"--out", out, "--end-date", "soon", good}, 2, "mmbot import: --end-date \"soon\": want RFC 3339 (2026-06-30T00:00:00Z) or YYYY-MM-DD\n"},
		{[]string{"--out", out, "--market", "0xm:1", good}, 2, "mmbot import: --market \"0xm:1\": want condition_id:YES_token,NO_token\n"},
		{[]string{"--out", out, "--trade-side", "left", good}, 2, "mmbot import: --trade-side \"left\": want taker, maker or none\n"},
		{[]string{"--out", out, filepath.Join(dir, "none-*")}, 1, ""},
		{[]string{"--out", out, "--catalog", filepath.Join(dir, "missing.json"), good}, 1, ""},
	} {
		code, stdout, stderr := runBt(append([]string{"import"}, c.args...)...)
		if code != c.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "mmbot import: ") ||
			c.want != "" && stderr != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("[{\"event_type\":\"book\",\"asset_id\":\"1\",\"timestamp\":\"1772366400000\"},\n {\"event_type\":\"last_trade_price\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runBt("import", "--out", out, good, bad)
	want := "mmbot import: nothing written to " + out + ": " + bad + ": message 2 (byte 68): message without timestamp\n"
	if code != 1 || stderr != want {
		t.Errorf("bad input: exit %d, stderr %q, want %q", code, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed import left %s", out)
	}
}

// On a terminal the progress line is redrawn every 2 s; elsewhere a line
// every 10 s.
func TestImportProgress(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var term, log bytes.Buffer
	pt := newImportProgress(&term, true, clock)
	pl := newImportProgress(&log, false, clock)
	for i := 1; i <= 12; i++ {
		now = now.Add(time.Second)
		pr := importer.Progress{File: "/captures/ws-1.jsonl.gz", Read: int64(i) << 20, Total: 12 << 20, Messages: i * 1000, Events: i * 900}
		pt.report(pr)
		pl.report(pr)
	}
	pt.done()
	pl.done()
	if n := strings.Count(term.String(), "\r"); n != 6 || !strings.HasSuffix(term.String(), "\x1b[K\n") ||
		!strings.Contains(term.String(), "\rimport: 100% (12.0 MiB of 12.0 MiB), 12000 messages, 10800 events, ws-1.jsonl.gz, 12s") {
		t.Errorf("terminal: %d redraws: %q", n, term.String())
	}
	if log.String() != "import:  83% (10.0 MiB of 12.0 MiB), 10000 messages, 9000 events, ws-1.jsonl.gz, 10s\n" {
		t.Errorf("log: %q", log.String())
	}
}

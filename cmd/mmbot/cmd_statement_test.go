package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

// stmtT0 is the clock origin of the test journal; the reports run at
// stmtNow unless a test says otherwise.
var (
	stmtT0  = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	stmtNow = stmtT0.Add(30 * time.Minute)
)

func stmtAt(minute int) time.Time { return stmtT0.Add(time.Duration(minute) * time.Minute) }

// The test journal's markets and tokens.
var (
	stmtCond1 = "0xc0ffee" + strings.Repeat("0", 54) + "0001"
	stmtCond2 = "0xbeef00" + strings.Repeat("0", 54) + "0002"
	stmtYes1  = strings.Repeat("1", 77)
	stmtNo1   = strings.Repeat("2", 77)
	stmtYes2  = strings.Repeat("3", 77)
)

// stmtJournal writes this journal through package state and returns its
// path and the writer, still open (closed at cleanup), so that the command
// reads it the way it does while the daemon runs:
//
//	minute  order                        fills
//	 1      BUY  YES1 10 @0.40           10 @0.40 fee 0.02 at 2
//	 3      SELL YES1 10 @0.46           6 @0.46 fee 0.01 at 5, 4 @0.47 at 7
//	 4      BUY  NO1  20 @0.55           12 @0.55 at 8; canceled at 20
//	 6      BUY  YES1 10 @0.38           canceled at 15
//	 9      BUY  YES2  5 @0.30           5 @0.30 at 10
//	11      BUY  YES2  5 @0.34           5 @0.34 at 12
//	25      an intent never sent; 26 an order that failed
func stmtJournal(t *testing.T) (string, *state.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mmbot.db")
	s, err := state.Open(path, state.Options{Account: "0xabc", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	n := 0
	update := func(fn func(tx *state.Tx) error) {
		t.Helper()
		if err := s.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
	order := func(tok, cond string, outcome int, side exchange.Side, price, size string, minute int, st state.OrderState) state.Order {
		n++
		o := state.Order{Hash: fmt.Sprintf("0x%064x", n), ConditionID: cond, TokenID: tok, Outcome: outcome, Side: side,
			Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size), OrderType: exchange.GTC,
			Salt: strconv.Itoa(n), CreatedAt: stmtAt(minute)}
		update(func(tx *state.Tx) error {
			if err := tx.PutIntent(o); err != nil || st == state.Intent {
				return err
			}
			return tx.ApplyResult(o.Hash, "x-"+strconv.Itoa(n), st, decimal.Zero, "", stmtAt(minute))
		})
		return o
	}
	fill := func(o state.Order, price, size, fee string, minute int, st state.OrderState, matched string) {
		update(func(tx *state.Tx) error {
			_, err := tx.AddFill(state.Fill{ID: fmt.Sprintf("trade-%d", minute), OrderHash: o.Hash, ConditionID: o.ConditionID,
				TokenID: o.TokenID, Side: o.Side, Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size),
				Fee: decimal.RequireFromString(fee), Time: stmtAt(minute)})
			if err != nil {
				return err
			}
			return tx.ApplyResult(o.Hash, "", st, decimal.RequireFromString(matched), "", stmtAt(minute))
		})
	}
	cancel := func(o state.Order, minute int) {
		update(func(tx *state.Tx) error { return tx.SetState(o.Hash, state.Canceled, stmtAt(minute)) })
	}
	o1 := order(stmtYes1, stmtCond1, 0, exchange.Buy, "0.40", "10", 1, state.Live)
	fill(o1, "0.40", "10", "0.02", 2, state.Filled, "10")
	o2 := order(stmtYes1, stmtCond1, 0, exchange.Sell, "0.46", "10", 3, state.Live)
	o3 := order(stmtNo1, stmtCond1, 1, exchange.Buy, "0.55", "20", 4, state.Live)
	fill(o2, "0.46", "6", "0.01", 5, state.PartiallyFilled, "6")
	o4 := order(stmtYes1, stmtCond1, 0, exchange.Buy, "0.38", "10", 6, state.Live)
	fill(o2, "0.47", "4", "0", 7, state.Filled, "10")
	fill(o3, "0.55", "12", "0", 8, state.PartiallyFilled, "12")
	o5 := order(stmtYes2, stmtCond2, 0, exchange.Buy, "0.30", "5", 9, state.Live)
	fill(o5, "0.30", "5", "0", 10, state.Filled, "5")
	o6 := order(stmtYes2, stmtCond2, 0, exchange.Buy, "0.34", "5", 11, state.Live)
	fill(o6, "0.34", "5", "0", 12, state.Filled, "5")
	cancel(o4, 15)
	cancel(o3, 20)
	order(stmtYes1, stmtCond1, 0, exchange.Buy, "0.41", "10", 25, state.Intent)
	order(stmtNo1, stmtCond1, 1, exchange.Buy, "0.50", "10", 26, state.Failed)
	return path, s
}

// runStatementCmd runs "mmbot statement args" at now and returns the exit status, stdout
// and stderr as runMain would.
func runStatementCmd(t *testing.T, now time.Time, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }}
	err := runCommand(e, newStatementCmd(e, func() time.Time { return now }), args)
	if err != nil {
		fmt.Fprintf(&errb, "%v\n", err)
		code = 1
		if _, ok := err.(*usageError); ok {
			code = 2
		}
	}
	return code, out.String(), errb.String()
}

// The table, checked by hand. YES1 bought 10 @0.40 (4.00) and sold 6 @0.46
// (2.76) and 4 @0.47 (1.88): 0.64 − fees 0.03 = 0.61, realized, flat. NO1
// holds 12 at cost 6.60, marked at its last fill 0.55: 0. YES2 holds 10 at
// cost 3.20 (5 @0.30, 5 @0.34), marked at 0.34: +0.20. Six orders reached
// the exchange (60 shares), 42 shares filled, two were canceled.
func TestStatementTable(t *testing.T) {
	path, _ := stmtJournal(t) // the writer stays open: the command reads a copy
	code, out, errOut := runStatementCmd(t, stmtNow, "--state", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "read a consistent copy of "+path) {
		t.Errorf("stderr does not say a copy was read: %q", errOut)
	}
	for _, want := range []string{
		"mmbot statement\n\n",
		"period   2026-03-01T12:01:00Z to 2026-03-01T12:30:00Z (29m0s)\n",
		"marks    last fill price\n",
		"PnL (marked)            0.81\n",
		"  realized              0.61\n",
		"  unrealized            0.2\n",
		"  fees                  0.03\n",
		"volume                  42 shares, 18.44 notional\n",
		"fills                   6\n",
		"orders sent / canceled  6 / 2\n",
		"fill ratio              70.00% (42 of 60)\n",
		"market         outcome  fills  volume  notional  fees  position  mark  marked by  realized  unrealized  PnL\n" +
			"0xbeef00…0002  YES      2      10      3.2       0     10        0.34  last fill  0         0.2         0.2\n" +
			"0xc0ffee…0001  YES      3      20      8.64      0.03  0         0.47  last fill  0.61      0           0.61\n" +
			"0xc0ffee…0001  NO       1      12      6.6       0     12        0.55  last fill  0         0           0\n" +
			"0xc0ffee…0001  all      4      32      15.24     0.03  -         -     -          0.61      0           0.61\n" +
			"total          -        6      42      18.44     0.03  -         -     -          0.61      0.2         0.81\n",
		"are not shown: they are measured against the book's mid",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

func TestStatementCSVAndJSON(t *testing.T) {
	path, _ := stmtJournal(t)
	code, out, errOut := runStatementCmd(t, stmtNow, "--state", path, "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "market,outcome,token,fills,volume,notional,fees,position,mark,marked_by,realized,unrealized,pnl\n" +
		"0xbeef00…0002,YES," + stmtYes2 + ",2,10,3.2,0,10,0.34,last fill,0,0.2,0.2\n" +
		"0xc0ffee…0001,YES," + stmtYes1 + ",3,20,8.64,0.03,0,0.47,last fill,0.61,0,0.61\n" +
		"0xc0ffee…0001,NO," + stmtNo1 + ",1,12,6.6,0,12,0.55,last fill,0,0,0\n" +
		"0xc0ffee…0001,all,,4,32,15.24,0.03,,,,0.61,0,0.61\n" +
		"total,,,6,42,18.44,0.03,,,,0.61,0.2,0.81\n"
	if out != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = runStatementCmd(t, stmtNow, "--state", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Source  string
		Journal string
		Start   time.Time
		Results struct {
			PnL, Realized, Unrealized, Fees, Volume, Notional string
			Fills, Orders, Canceled                           int
		}
		Markets []struct{ Market, PnL string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	r := got.Results
	if got.Source != "journal" || !strings.HasPrefix(got.Journal, path) || !got.Start.Equal(stmtAt(1)) ||
		r.PnL != "0.81" || r.Realized != "0.61" || r.Unrealized != "0.2" || r.Fees != "0.03" || r.Volume != "42" ||
		r.Notional != "18.44" || r.Fills != 6 || r.Orders != 6 || r.Canceled != 2 ||
		len(got.Markets) != 2 || got.Markets[0].PnL != "0.2" || got.Markets[1].PnL != "0.61" {
		t.Errorf("JSON %+v", got)
	}
}

// --from and --to select a period. From 12:06 to 12:11, YES1 comes in
// holding 4 shares that cost 1.60 and last traded at 0.46 (worth 1.84) and
// sells them at 0.47: realized 1.88 − 1.60 = 0.28, PnL 1.88 − 1.84 = 0.04.
// NO1 buys 12 @0.55 and YES2 5 @0.30, both marked at their fill price.
func TestStatementPeriod(t *testing.T) {
	path, _ := stmtJournal(t)
	code, out, errOut := runStatementCmd(t, stmtNow, "--state", path, "--from", "2026-03-01T12:06:00Z", "--to", "2026-03-01T12:11:00Z", "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "market,outcome,token,fills,volume,notional,fees,position,mark,marked_by,realized,unrealized,pnl\n" +
		"0xbeef00…0002,YES," + stmtYes2 + ",1,5,1.5,0,5,0.3,last fill,0,0,0\n" +
		"0xc0ffee…0001,YES," + stmtYes1 + ",1,4,1.88,0,0,0.47,last fill,0.28,-0.24,0.04\n" +
		"0xc0ffee…0001,NO," + stmtNo1 + ",1,12,6.6,0,12,0.55,last fill,0,0,0\n" +
		"0xc0ffee…0001,all,,2,16,8.48,0,,,,0.28,-0.24,0.04\n" +
		"total,,,3,21,9.98,0,,,,0.28,-0.24,0.04\n"
	if out != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", out, want)
	}
	// The same period with a duration before now (12:30 − 24m = 12:06).
	code, again, errOut := runStatementCmd(t, stmtNow, "--state", path, "--from", "24m", "--to", "19m", "--csv")
	if code != 0 || again != out {
		t.Errorf("exit %d (%s), durations give another period:\n%s", code, errOut, again)
	}
}

// --out writes the backtest's report files and the table and fills; the
// HTML opens offline.
func TestStatementOut(t *testing.T) {
	path, _ := stmtJournal(t)
	dir := filepath.Join(t.TempDir(), "pnl")
	code, out, errOut := runStatementCmd(t, stmtNow, "--state", path, "--out", dir, "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "reports: "+filepath.Join(dir, "summary.txt")) {
		t.Errorf("stderr does not name the reports: %q", errOut)
	}
	files := map[string]string{}
	for _, name := range []string{"summary.txt", "series.csv", "markets.csv", "fills.csv", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	if files["markets.csv"] != out {
		t.Errorf("markets.csv differs from --csv:\n%s", files["markets.csv"])
	}
	if !strings.Contains(files["summary.txt"], "PnL (marked)            0.81\n") {
		t.Errorf("summary.txt:\n%s", files["summary.txt"])
	}
	if !strings.Contains(files["fills.csv"], "2026-03-01T12:05:00Z,"+stmtYes1+",0xc0ffee…0001 YES,0x"+strings.Repeat("0", 63)+"2,SELL,0.46,6,0.01\n") {
		t.Errorf("fills.csv:\n%s", files["fills.csv"])
	}
	// Positions over time: at 12:15 (samples every 10 s) NO1 holds 12 and
	// YES2 10 shares.
	for _, want := range []string{
		"2026-03-01T12:15:00Z," + stmtNo1 + ",0xc0ffee…0001,0.55,12,-6.6,0,0,1\n",
		"2026-03-01T12:15:00Z," + stmtYes2 + ",0xbeef00…0002,0.34,10,-3.2,0,0.2,2\n",
		"2026-03-01T12:15:00Z,*,,,,-9.19,0.03,0.81,\n",
	} {
		if !strings.Contains(files["series.csv"], want) {
			t.Errorf("series.csv lacks %q", want)
		}
	}
	page := files["report.html"]
	for _, bad := range []string{"<script", "http:", "https:", "src=", "href=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	if n := len(regexp.MustCompile(`<svg`).FindAllString(page, -1)); n != 8 || !strings.Contains(page, "<h2>Markets</h2>") {
		t.Errorf("report.html has %d plots (want 8: PnL, drawdown, mark and inventory of 3 tokens)", n)
	}
}

// stmtBooks serves POST /books with the given books (token → bid, ask; an
// empty side is ""), and counts the calls.
func stmtBooks(t *testing.T, books map[string][2]string) (string, *int) {
	t.Helper()
	calls := 0
	mux := http.NewServeMux()
	mux.HandleFunc("POST /clob/books", func(w http.ResponseWriter, r *http.Request) {
		calls++
		var refs []exchange.TokenRef
		if err := json.NewDecoder(r.Body).Decode(&refs); err != nil {
			w.WriteHeader(400)
			return
		}
		var out []exchange.OrderBook
		for _, ref := range refs {
			ba, ok := books[ref.TokenID]
			if !ok {
				continue
			}
			b := exchange.OrderBook{AssetID: ref.TokenID}
			if ba[0] != "" {
				b.Bids = []exchange.PriceLevel{{Price: decimal.RequireFromString("0.01"), Size: decimal.NewFromInt(5)},
					{Price: decimal.RequireFromString(ba[0]), Size: decimal.NewFromInt(100)}}
			}
			if ba[1] != "" {
				b.Asks = []exchange.PriceLevel{{Price: decimal.RequireFromString(ba[1]), Size: decimal.NewFromInt(100)}}
			}
			out = append(out, b)
		}
		_ = json.NewEncoder(w).Encode(out)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, &calls
}

func stmtConfig(t *testing.T, base, statePath string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "mmbot.toml")
	text := fmt.Sprintf("[exchange]\ndata_url = %q\ncatalog_url = %q\nclob_url = %q\n[state]\npath = %q\n",
		base+"/data", base+"/catalog", base+"/clob", statePath)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// --mark-mid marks the open positions at the exchange's mid: NO1 at
// (0.59 + 0.61)/2 = 0.60, 12 × 0.05 = +0.60; YES2's book is one-sided, so
// it keeps its last fill price (+0.20).
func TestStatementMarkMid(t *testing.T) {
	path, _ := stmtJournal(t)
	base, calls := stmtBooks(t, map[string][2]string{stmtNo1: {"0.59", "0.61"}, stmtYes2: {"0.33", ""}})
	cfg := stmtConfig(t, base, path)
	code, out, errOut := runStatementCmd(t, stmtNow, "-c", cfg, "--mark-mid", "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "0xc0ffee…0001,NO," + stmtNo1 + ",1,12,6.6,0,12,0.6,mid,0,0.6,0.6\n"
	if !strings.Contains(out, want) || !strings.Contains(out, ",10,0.34,last fill,0,0.2,0.2\n") || !strings.HasSuffix(out, "total,,,6,42,18.44,0.03,,,,0.61,0.8,1.41\n") {
		t.Errorf("CSV:\n%s", out)
	}
	if *calls != 1 || !strings.Contains(errOut, "1 of 2 open positions without a two-sided book, marked at the last fill price") {
		t.Errorf("%d calls; stderr %q", *calls, errOut)
	}
	_, out, _ = runStatementCmd(t, stmtNow, "-c", cfg, "--mark-mid")
	if !strings.Contains(out, "marks    the exchange's mid at the end (1 of 2 open positions), else the last fill price (1 of 2 open positions without a two-sided book") {
		t.Errorf("the table does not say how it marks:\n%s", out)
	}
	// An exchange that does not answer: every position keeps its last fill
	// price, and the report says why.
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	code, out, errOut = runStatementCmd(t, stmtNow, "-c", stmtConfig(t, dead, path), "--mark-mid", "--csv")
	if code != 0 || !strings.HasSuffix(out, "total,,,6,42,18.44,0.03,,,,0.61,0.2,0.81\n") ||
		!strings.Contains(errOut, "the exchange's books could not be read") {
		t.Errorf("exit %d, stdout:\n%s\nstderr %q", code, out, errOut)
	}
}

func TestStatementErrors(t *testing.T) {
	path, _ := stmtJournal(t)
	missing := filepath.Join(t.TempDir(), "nope.db")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no journal named", nil, 2, "--state PATH or -c CONFIG is required"},
		{"missing journal", []string{"--state", missing}, 1, "no journal at " + missing + " (--state)"},
		{"empty period", []string{"--state", path, "--from", "2026-03-01T12:13:00Z"}, 1,
			"no fills in the period: none from 2026-03-01T12:13:00Z to 2026-03-01T12:30:00Z; the journal's 6 fills run from 2026-03-01T12:02:00Z to 2026-03-01T12:12:00Z"},
		{"bad time", []string{"--state", path, "--from", "yesterday"}, 2, `--from: "yesterday": want an RFC 3339 time`},
		{"bad end", []string{"--state", path, "--to", "2026-13-01"}, 2, `--to: "2026-13-01"`},
		{"backwards", []string{"--state", path, "--from", "1h", "--to", "2h"}, 2, "ends before it starts"},
		{"csv and json", []string{"--state", path, "--csv", "--json"}, 2, "exclude each other"},
		{"mark-mid without config", []string{"--state", path, "--mark-mid"}, 2, "--mark-mid needs -c"},
		{"mark-mid with an end", []string{"-c", "x.toml", "--mark-mid", "--to", "1h"}, 2, "drop --to"},
		{"negative interval", []string{"--state", path, "--interval", "-1s"}, 2, "--interval"},
		{"interval too short", []string{"--state", path, "--from", "2026-02-27", "--interval", "1s"}, 2,
			"--interval 1s samples the period 217800 times (at most 100000)"}, // 2 days 12h30m
		{"extra argument", []string{"--state", path, "today"}, 2, "unexpected arguments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runStatementCmd(t, stmtNow, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, c.code, c.want)
			}
			if out != "" {
				t.Errorf("stdout %q", out)
			}
		})
	}
	// -c names the config's state.path in the error.
	cfg := filepath.Join(t.TempDir(), "mmbot.toml")
	if err := os.WriteFile(cfg, []byte("[exchange]\nembedded_sim = true\n[state]\npath = "+strconv.Quote(missing)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runStatementCmd(t, stmtNow, "-c", cfg); code != 1 || !strings.Contains(errOut, "(state.path of "+cfg+")") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestParseWhen(t *testing.T) {
	now := stmtNow
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2026-03-01T12:06:00Z", stmtAt(6)},
		{"2026-03-01T13:06:00+01:00", stmtAt(6)},
		{"2026-03-01T12:06:00.5Z", stmtAt(6).Add(500 * time.Millisecond)},
		{"2026-03-01", stmtT0.Add(-12 * time.Hour)},
		{"now", now},
		{"90m", now.Add(-90 * time.Minute)},
		{"7d", now.Add(-7 * 24 * time.Hour)},
		{"1d12h", now.Add(-36 * time.Hour)},
	} {
		got, err := parseWhen(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("parseWhen(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-24h", "0s", "d", "7dd", "12:00", "2026-03-01 12:00", "99999999d"} {
		if _, err := parseWhen(bad, now); err == nil {
			t.Errorf("parseWhen(%q) accepted", bad)
		}
	}
}

// The command is in the tree: mmbot statement runs through runMain.
func TestStatementViaRunMain(t *testing.T) {
	path, _ := stmtJournal(t)
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if code := runMain(e, []string{"statement", "--state", path, "--from", "2026-03-01T12:00:00Z", "--to", "2026-03-01T12:30:00Z", "--json"}); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(out.String(), `"pnl": "0.81"`) {
		t.Fatalf("output %s", out.String())
	}
	_, _ = io.Copy(io.Discard, &errb)
}

// The daemon's reward estimate, which it writes to the journal by the
// hour, is in the statement for the hours that overlap the period: in
// the text, and in the JSON's totals and markets.
func TestStatementRewards(t *testing.T) {
	path, s := stmtJournal(t)
	d := decimal.RequireFromString
	for _, r := range []struct {
		at     time.Time
		earned map[string]decimal.Decimal
	}{
		{stmtAt(5), map[string]decimal.Decimal{stmtCond1: d("0.125"), stmtCond2: d("0.5")}},
		{stmtAt(20), map[string]decimal.Decimal{stmtCond1: d("0.375")}},
		{stmtAt(65), map[string]decimal.Decimal{stmtCond1: d("4")}}, // the next hour
	} {
		if err := s.AddRewards(r.at, r.earned); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runStatementCmd(t, stmtNow, "--state", path, "--from", stmtT0.Format(time.RFC3339))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !regexp.MustCompile(`rewards earned +1 \(the daemon's estimate`).MatchString(out) {
		t.Errorf("the text does not show 1.00 earned in the hour from 12:00:\n%s", out)
	}
	code, out, errOut = runStatementCmd(t, stmtAt(120), "--state", path, "--from", stmtT0.Format(time.RFC3339), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Results struct {
			Rewards string `json:"rewards_earned"`
		}
		Markets []struct {
			Market  string
			Rewards string `json:"rewards_earned"`
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.Results.Rewards != "5" || len(got.Markets) != 2 || got.Markets[1].Rewards != "4.5" || got.Markets[0].Rewards != "0.5" {
		t.Errorf("JSON rewards: %+v", got)
	}
	// An hour that overlaps the period counts whole.
	code, out, errOut = runStatementCmd(t, stmtAt(120), "--state", path, "--from", stmtAt(10).Format(time.RFC3339), "--json")
	if code != 0 || !strings.Contains(out, `"rewards_earned": "5"`) {
		t.Errorf("from 12:10: exit %d, %s %s", code, out, errOut)
	}
	// (Which hours a period takes is state.Rewards' test; a period
	// without fills stays an error, rewards or not.)
}

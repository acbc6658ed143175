package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

var ordersNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const ordersMarket = "0x5f0c3c0b0d3b7c7a2f8e1b7a0f58b1d7e2c3f4a5b6c7d8e9f0a1b2c3d4e5f6a7"

const ordersToken = "71321045679252212594626385532706912750332728571942532289631379312455583992563"

// ordersJournal writes a journal with one order in each of five states and
// returns its path and the open writer (closed at cleanup, or by the caller).
func ordersJournal(t *testing.T) (string, *state.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mmbot.db")
	s, err := state.Open(path, state.Options{Account: "0xabc", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	rows := []struct {
		state   state.OrderState
		xid     string
		matched string
		age     time.Duration
	}{
		{state.Intent, "", "0", 5 * time.Second},
		{state.Live, "hash", "0", 90 * time.Second}, // the exchange's id is the hash
		{state.PartiallyFilled, "ord-17", "2.5", 3*time.Hour + 4*time.Minute},
		{state.Filled, "0xfeed0000000000000000000000000000000000000000000000000000000000aa", "10", 50 * time.Hour},
		{state.Failed, "", "0", 51 * time.Hour},
	}
	err = s.Update(func(tx *state.Tx) error {
		for i, r := range rows {
			side := exchange.Buy
			if i%2 == 1 {
				side = exchange.Sell
			}
			o := state.Order{
				Hash: fmt.Sprintf("0x%02x%062x", i+1, i+1), ConditionID: ordersMarket, TokenID: ordersToken, Outcome: i % 2,
				Side: side, Price: decimal.RequireFromString("0.47"), Size: decimal.RequireFromString("10"),
				OrderType: exchange.GTC, Salt: fmt.Sprint(42 + i), CreatedAt: ordersNow.Add(-r.age),
				Item: exchange.PlacementItem{OrderType: exchange.GTC, Owner: "11111111-2222-3333-4444-555555555555",
					Order: exchange.SignedOrder{Salt: fmt.Sprint(42 + i), TokenID: ordersToken, Side: side}},
			}
			if err := tx.PutIntent(o); err != nil {
				return err
			}
			if r.state != state.Intent {
				m := decimal.RequireFromString(r.matched)
				xid := r.xid
				if xid == "hash" {
					xid = o.Hash
				}
				if err := tx.ApplyResult(o.Hash, xid, r.state, m, "", o.CreatedAt); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return path, s
}

func runOrdersCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	err := runOrders(e, args, ordersNow)
	code = 0
	if err != nil {
		fmt.Fprintf(&errb, "%v\n", err)
		code = 1
		if _, ok := err.(*usageError); ok {
			code = 2
		}
	}
	return code, out.String(), errb.String()
}

func TestOrdersTable(t *testing.T) {
	path, w := ordersJournal(t)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	const header = "HASH                          MARKET            OUTCOME  SIDE  PRICE  SIZE  MATCHED  STATE             AGE\n"
	var (
		failed  = "0x05000000..0005                0x5f0c3c0b..f6a7  YES      BUY   0.47   10    0        failed            2d03h\n"
		filled  = "0x04000000..0004 (id 0xfeed0000..00aa)  0x5f0c3c0b..f6a7  NO  SELL  0.47   10    10       filled            2d02h\n"
		partial = "0x03000000..0003 (id ord-17)  0x5f0c3c0b..f6a7  YES      BUY   0.47   10    2.5      partially_filled  3h04m\n"
		live    = "0x02000000..0002              0x5f0c3c0b..f6a7  NO       SELL  0.47   10    0        live              1m30s\n"
		intent  = "0x01000000..0001              0x5f0c3c0b..f6a7  YES      BUY   0.47   10    0        intent            5s\n"
	)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"open orders by default", nil, header + partial + live + intent + "3 orders\n"},
		{"all", []string{"--all"}, header + failed + filled + partial + live + intent + "5 orders\n"},
		{"filter", []string{"--state-filter", "live,intent"}, header + live + intent + "2 orders\n"},
		{"filter repeated, any case", []string{"--state-filter=FILLED", "--state-filter", "failed"}, header + failed + filled + "2 orders\n"},
		{"filter matching nothing", []string{"--state-filter", "canceled"}, header + "0 orders\n"},
		{"one", []string{"--state-filter", "intent"}, header + intent + "1 order\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runOrdersCmd(t, append([]string{"--state", path}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			// column widths follow the rows shown: compare the cells, and
			// the exact layout for the default listing
			if collapseSpaces(out) != collapseSpaces(c.want) || (c.args == nil && out != c.want) {
				t.Errorf("output:\n%s\nwant:\n%s", out, c.want)
			}
			if errOut != "" {
				t.Errorf("stderr: %q", errOut)
			}
		})
	}
}

func collapseSpaces(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

func TestOrdersJSON(t *testing.T) {
	path, w := ordersJournal(t)
	_ = w.Close()
	code, out, errOut := runOrdersCmd(t, "--state", path, "--json", "--all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []state.Order
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(got) != 5 {
		t.Fatalf("%d orders", len(got))
	}
	p := got[2]
	if p.State != state.PartiallyFilled || p.ExchangeID != "ord-17" || !p.SizeMatched.Equal(decimal.RequireFromString("2.5")) ||
		p.TokenID != ordersToken || p.Salt != "44" || p.Item.Order.Salt != "44" {
		t.Errorf("record %+v", p)
	}
	for _, o := range got {
		if o.Item.Owner != "" { // never stored
			t.Errorf("owner printed: %q", o.Item.Owner)
		}
	}
	if strings.Contains(out, "11111111-2222") {
		t.Error("API key in the output")
	}
	// an empty selection is an empty array, not null
	_, out, _ = runOrdersCmd(t, "--state", path, "--json", "--state-filter", "canceled")
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("empty selection: %q", out)
	}
}

// The daemon holds the journal's exclusive lock for as long as it runs;
// mmbot orders must still work, from a consistent copy, and say so.
func TestOrdersWhileDaemonRuns(t *testing.T) {
	path, w := ordersJournal(t) // w stays open: it plays the daemon
	code, out, errOut := runOrdersCmd(t, "--state", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasSuffix(out, "3 orders\n") {
		t.Errorf("output %q", out)
	}
	if !strings.Contains(errOut, "consistent copy") {
		t.Errorf("stderr does not say it read a copy: %q", errOut)
	}
	// and the daemon carries on writing
	err := w.Update(func(tx *state.Tx) error { return tx.SetMeta("cursor", "x") })
	if err != nil {
		t.Fatal(err)
	}
}

func TestOrdersErrors(t *testing.T) {
	path, w := ordersJournal(t)
	_ = w.Close()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no state", nil, 2, "--state PATH or -c CONFIG is required"},
		{"missing config", []string{"-c", filepath.Join(t.TempDir(), "nope.toml")}, 1, "configuration"},
		{"bad filter", []string{"--state", path, "--state-filter", "live,matched"}, 2, `unknown state "matched"`},
		{"all and filter", []string{"--state", path, "--all", "--state-filter", "live"}, 2, "exclude each other"},
		{"extra argument", []string{"--state", path, "live"}, 2, "unexpected arguments"},
		{"unknown flag", []string{"--state", path, "--verbose"}, 2, "unknown flag"},
		{"missing file", []string{"--state", filepath.Join(t.TempDir(), "nope.db")}, 1, "no such file"},
		{"help", []string{"-h"}, 0, "usage: mmbot orders"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runOrdersCmd(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, c.code, c.want)
			}
			if out != "" {
				t.Errorf("stdout %q", out)
			}
		})
	}
}

// The dispatcher maps the command's errors to exit codes.
func TestOrdersViaRunMain(t *testing.T) {
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if code := runMain(e, []string{"orders"}); code != 2 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	path, w := ordersJournal(t)
	_ = w.Close()
	errb.Reset()
	if code := runMain(e, []string{"orders", "--state", path, "--all"}); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if !strings.HasSuffix(out.String(), "5 orders\n") {
		t.Fatalf("output %q", out.String())
	}
}

func TestOrdersShortIDAndAge(t *testing.T) {
	ids := []struct{ in, want string }{
		{"", ""},
		{"ord-17", "ord-17"},
		{"0x12345678abcd", "0x12345678abcd"},
		{"0x1234567890abcdef", "0x12345678..cdef"},
		{"12345678901234", "12345678901234"},
		{"123456789012345", "12345678..2345"},
	}
	for _, c := range ids {
		if got := ordersShortID(c.in); got != c.want {
			t.Errorf("ordersShortID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	ages := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{0, "0s"},
		{59 * time.Second, "59s"},
		{60 * time.Second, "1m00s"},
		{time.Hour - time.Second, "59m59s"},
		{time.Hour, "1h00m"},
		{24 * time.Hour, "1d00h"},
		{400 * time.Hour, "16d16h"},
	}
	for _, c := range ages {
		if got := ordersAge(c.d); got != c.want {
			t.Errorf("ordersAge(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// -c reads the journal's path from the config's state.path.
func TestOrdersFromConfig(t *testing.T) {
	path, w := ordersJournal(t)
	_ = w.Close()
	cfg := filepath.Join(t.TempDir(), "mmbot.toml")
	if err := os.WriteFile(cfg, []byte("[exchange]\nembedded_sim = true\n[state]\npath = "+strconv.Quote(path)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, viaConfig, errOut := runOrdersCmd(t, "-c", cfg, "--all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, viaState, _ := runOrdersCmd(t, "--state", path, "--all")
	if viaConfig != viaState || viaConfig == "" {
		t.Fatalf("-c listing differs from --state listing:\n%s\n---\n%s", viaConfig, viaState)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

// The demo (configs/demo.toml: the embedded simulated exchange, which
// lives only as long as its process) run twice: the second run does not
// start from the first one's journal — whose orders and positions belong to
// an exchange that is gone, and were carried into a run that showed "fills
// 0, pnl +0.0000" and was held back by the position limit — but sets it
// aside (renamed, kept) and says so, and journals only what it did itself.
func TestDemoRunTwiceStartsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo twice for a few seconds")
	}
	demo := filepath.Join("..", "..", "configs", "demo.toml")
	dir := t.TempDir()
	journal := filepath.Join(dir, "mmbot-demo.db")
	run := func() (time.Time, string) {
		t.Helper()
		start := time.Now().Add(-time.Second) // journal times are the exchange's, on the same clock
		code, out, errOut := runCLI(t, nil, "run", "-c", demo, "--duration", "4s", "--status", "off", "--log-format", "json",
			"--state-path", journal)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		return start, errOut
	}
	run()
	first, err := state.Open(journal, state.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	firstOrders, _ := first.Orders(state.OrderFilter{})
	firstPos, _ := first.Positions()
	_ = first.Close()
	if len(firstOrders) == 0 {
		t.Fatal("the first demo run journaled no order")
	}
	t.Logf("first run: %d orders, %d positions", len(firstOrders), len(firstPos))

	start2, log2 := run()
	if !strings.Contains(log2, "set aside") || !strings.Contains(log2, journal+".") {
		t.Errorf("the second run does not say it set the first run's journal aside:\n%s", log2)
	}
	aside, _ := filepath.Glob(journal + ".2*")
	if len(aside) != 1 {
		t.Fatalf("journals set aside: %v, want the first run's", aside)
	}
	old, err := state.Open(aside[0], state.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	oldOrders, _ := old.Orders(state.OrderFilter{})
	_ = old.Close()
	if len(oldOrders) != len(firstOrders) {
		t.Errorf("the journal set aside holds %d orders, the first run journaled %d", len(oldOrders), len(firstOrders))
	}

	second, err := state.Open(journal, state.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	orders, _ := second.Orders(state.OrderFilter{})
	for _, o := range orders {
		if o.CreatedAt.Before(start2) {
			t.Errorf("order %s of %s in the second run's journal predates it", o.Hash, o.CreatedAt)
		}
	}
	fills, _ := second.Fills(time.Time{})
	sum := map[string]float64{}
	for _, f := range fills {
		if f.Time.Before(start2) {
			t.Errorf("fill %s of %s in the second run's journal predates it", f.ID, f.Time)
		}
		v := f.Size.InexactFloat64()
		if f.Side == exchange.Sell {
			v = -v
		}
		sum[f.TokenID] += v
	}
	positions, _ := second.Positions()
	for _, p := range positions {
		if got := p.Shares.InexactFloat64(); got-sum[p.TokenID] > 1e-9 || sum[p.TokenID]-got > 1e-9 {
			t.Errorf("token %s: position %s, but the second run's own fills add up to %v: a carried position", p.TokenID, p.Shares, sum[p.TokenID])
		}
	}
	if _, err := os.Stat(journal + ".addr"); err == nil {
		t.Errorf("the address file %s.addr outlived the daemon", journal)
	}
}

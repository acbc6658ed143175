package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy/loop"
)

// msgRefused is the daemon's line for an order the exchange refused.
const msgRefused = "exchange refused the order"

// balanceRefusals counts the orders the exchange refused for want of
// balance ("not enough balance: order needs N shares, M available").
func balanceRefusals(p *daemonProc) int {
	n := 0
	for _, l := range p.linesWith(msgRefused) {
		if strings.Contains(l.str("error"), "not enough balance") {
			n++
		}
	}
	return n
}

// TestDaemonSettlement is issue 20's end-to-end test of settlement: the
// simulated exchange settles every match over time (MATCHED for 2 s, then
// MINED, CONFIRMED 3 s later) and fails 10% of them (RETRYING, then FAILED
// and reverted); the real daemon quotes, selling first what it holds, for
// 20 s (SETTLE_LONG=1: a minute), then stops (SIGTERM). Once the exchange
// has settled everything, a second run (the order endpoints in maintenance:
// nothing new trades) reads the last statuses. Then the journal's
// positions and collateral equal the exchange's settled balances, every
// failed trade is listed in the journal and logged once, none is left
// pending, and the exchange refused no SELL for want of balance (shares
// bought are offered back only once settled).
func TestDaemonSettlement(t *testing.T) {
	t.Parallel() // it waits on its clock
	bin := needDaemon(t)
	run := 20 * time.Second
	if os.Getenv("SETTLE_LONG") == "1" {
		run = time.Minute
	}
	const fund = "100000"
	se := newSimEnv(t, simOptions{seed: 5, markets: 6, fund: fund,
		flow:   sim.FlowConfig{TakerRate: 3, TakerSize: 10, Volatility: 2, Informed: 0.2},
		settle: sim.SettlementConfig{Delay: 2 * time.Second, Confirm: 3 * time.Second}, settleFail: 0.1})
	dir := t.TempDir()
	statePath := filepath.Join(dir, "mmbot.db")
	cfg := botConfig{se: se, statePath: statePath, markets: 3, cycle: "300ms", builder: testBuilderCode,
		levels: `[{ offset = "0.01", size = "10" }, { offset = "0.02", size = "10" }]`,
		risk: `max_position = "80"
max_total_position = "200"
max_drawdown = "100000"
max_consecutive_errors = 1000000
max_error_rate = 1.0
cooldown = "0s"`,
		strategy: "price_tolerance_ticks = 0",
	}.write(t, dir)

	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	time.Sleep(run)
	p.signal(syscall.SIGTERM)
	if ws, ok := p.wait(60 * time.Second); !ok || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("first run ended %v (waited: %v), want exit 0; log:\n%s", ws, ok, p.tail(30))
	}
	// The exchange settles what is still pending.
	deadline := time.Now().Add(20 * time.Second)
	for open, _ := se.ex.SettlementStats(); open > 0; open, _ = se.ex.SettlementStats() {
		if time.Now().After(deadline) {
			t.Fatalf("%d settlements still open on the exchange", open)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A second run reads the last statuses; no order can be placed.
	f := se.ex.Faults()
	f.MaintenanceFrom, f.MaintenanceUntil = time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	if err := se.ex.SetFaults(f); err != nil {
		t.Fatal(err)
	}
	p2 := startDaemon(t, bin, cfg)
	p2.mustReady(30 * time.Second)
	time.Sleep(5 * time.Second)
	p2.signal(syscall.SIGTERM)
	if ws, ok := p2.wait(60 * time.Second); !ok || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("second run ended %v (waited: %v), want exit 0; log:\n%s", ws, ok, p2.tail(30))
	}

	jv := readJournal(t, statePath)
	for _, d := range diffPositions(jv.positions, se.shares(t)) {
		t.Errorf("positions: %s", d)
	}
	st, err := state.Open(statePath, state.Options{ReadOnly: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ps, err := st.Positions()
	if err != nil {
		t.Fatal(err)
	}
	cash := decimal.Zero // collateral received minus paid: realized PnL − cost basis, summed (no fees here)
	realized := decimal.Zero
	for _, pos := range ps {
		cash = cash.Add(pos.RealizedPnL).Sub(pos.Cost)
		realized = realized.Add(pos.RealizedPnL)
	}
	bal, _ := se.ex.Balance(se.acct.Wallet)
	if want := decimal.RequireFromString(fund).Add(cash); !bal.Collateral.Equal(want) {
		t.Errorf("collateral: the exchange holds %s, the journal says %s (fund %s, cash %s)", bal.Collateral, want, fund, cash)
	}
	failed, err := st.FailedTrades(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	open, err := st.OpenTrades()
	if err != nil {
		t.Fatal(err)
	}
	_, simFailed := se.ex.SettlementStats()
	logged := len(p.linesWith(loop.MsgTradeFailed)) + len(p2.linesWith(loop.MsgTradeFailed))
	refusals := balanceRefusals(p) + balanceRefusals(p2)
	t.Logf("%s run: %d fills, %d journal positions; %d settlements failed on the exchange, %d trades reversed in the journal (%d log lines), %d pending; cash %s, realized %s; %d refused for balance",
		run, len(jv.fills), len(jv.positions), simFailed, len(failed), logged, len(open), cash, realized, refusals)
	for _, tr := range failed {
		t.Logf("failed trade %s order %s %s %s @ %s, reversed %v", tr.ID, short(tr.OrderHash), tr.Side, tr.Size, tr.Price, tr.Reversed)
		if !tr.Reversed {
			t.Errorf("failed trade %s not reversed", tr.ID)
		}
	}
	switch {
	case len(jv.fills) == 0:
		t.Error("no fill: the test checked nothing")
	case simFailed == 0:
		t.Error("no settlement failed on the exchange: the reversal was not exercised")
	case len(failed) < simFailed:
		t.Errorf("%d failed trades in the journal, %d failed settlements on the exchange", len(failed), simFailed)
	}
	if logged != len(failed) {
		t.Errorf("%d failed-trade log lines for %d failed trades", logged, len(failed))
	}
	if len(open) != 0 {
		t.Errorf("%d trades still pending in the journal", len(open))
	}
	if refusals != 0 {
		t.Errorf("%d orders refused for want of balance", refusals)
	}
}

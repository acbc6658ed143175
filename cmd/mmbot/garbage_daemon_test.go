package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/strategy/loop"
)

// TestDaemonRefusesGarbageMarket: the exchange starts answering garbage
// books (negative sizes) for one of the three quoted markets. The daemon
// refuses that market with one log line however long the garbage lasts,
// cancels its orders and places none there, counts the refusals by reason
// in its metrics, and keeps quoting the other two. When the books are
// honest again, the market is quoted again.
func TestDaemonRefusesGarbageMarket(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 44, markets: 4, flow: sim.FlowConfig{TakerRate: 0.5, TakerSize: 10, MakerRequote: time.Second}})
	dir := t.TempDir()
	cfg := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: 3, cycle: "200ms",
		risk: `max_book_age = "30s"
cooldown = "0s"`,
		// the adverse-selection rules may pull a market's quotes for a few
		// seconds after a print through them: off, so that "the other markets
		// keep quoting" means the refusal did not stop them
		strategy: "adverse = { enabled = false }"}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	var quoted []string
	for _, l := range p.linesWith("quoting") {
		quoted = append(quoted, l.str("market"))
	}
	if len(quoted) != 3 {
		t.Fatalf("quoting %v, want 3 markets", quoted)
	}
	bad := quoted[1]
	waitFor(t, 20*time.Second, "orders in all three markets", func() bool {
		by := se.ex.OpenOrdersByMarket(se.acct.APIKey)
		return by[quoted[0]] > 0 && by[bad] > 0 && by[quoted[2]] > 0
	})

	if err := se.ex.SetFaults(sim.Faults{GarbageMarkets: []string{bad}, GarbageKind: "negative_size"}); err != nil {
		t.Fatal(err)
	}
	refused, ok := p.waitMsg(10*time.Second, loop.MsgBookRefused)
	if !ok {
		t.Fatalf("no line about the refused book within 10 s; log:\n%s", p.messageCounts())
	}
	if refused.str("market") != bad || refused.str("reason") != "size" || !strings.Contains(refused.str("error"), `"-1000" is negative`) {
		t.Errorf("refusal line %v: want market %s, reason size and the value", refused, bad)
	}
	waitFor(t, 10*time.Second, "the refused market's orders cancelled", func() bool { return se.ex.OpenOrdersByMarket(se.acct.APIKey)[bad] == 0 })
	batches := len(se.tr.Batches())
	// A good market may show no order for a moment (a taker filled its
	// quotes, or the adverse rules paused it after a fill); it has stopped
	// quoting when it shows none for a second (5 samples) in a row.
	idle := map[string]int{}
	for range 20 { // 4 s, 20 cycles of garbage
		by := se.ex.OpenOrdersByMarket(se.acct.APIKey)
		if by[bad] != 0 {
			t.Fatalf("%d orders live in the refused market", by[bad])
		}
		for _, m := range []string{quoted[0], quoted[2]} {
			if idle[m] = idle[m] + 1; by[m] > 0 {
				idle[m] = 0
			}
			if idle[m] >= 5 {
				t.Fatalf("market %s stopped quoting: no order for 1 s (%v)", m, by)
			}
		}
		time.Sleep(200 * time.Millisecond) // watching a real-time process
	}
	if n := len(p.linesWith(loop.MsgBookRefused)); n != 1 {
		t.Errorf("%d refusal lines over 20 cycles of garbage, want 1; log:\n%s", n, p.messageCounts())
	}
	if len(se.tr.Batches()) == batches {
		t.Error("no order placed in 4 s: the other markets stopped requoting")
	}
	l, ok := p.waitMsg(time.Second, "metrics, /healthz and /readyz")
	if !ok {
		t.Fatal("no metrics line")
	}
	if code, body := httpGet(t, l.str("listen")+"/metrics"); code != 200 || !strings.Contains(body, `mmbot_market_data_refused_total{reason="size"}`) {
		t.Errorf("/metrics (%d) lacks the refusal count", code)
	}

	if err := se.ex.SetFaults(sim.Faults{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the market quoted again", func() bool { return se.ex.OpenOrdersByMarket(se.acct.APIKey)[bad] > 0 })
	p.signal(syscall.SIGTERM)
	if ws, ok := p.wait(30 * time.Second); !ok || ws.ExitStatus() != 0 {
		t.Fatalf("after SIGTERM: %v; log:\n%s", ws, p.tail(20))
	}
}

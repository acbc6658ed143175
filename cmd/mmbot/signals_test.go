package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// SIGHUP reloads the strategy parameters from the config file without a
// restart; an invalid new config is rejected and the old one kept (the
// daemon goes on quoting); SIGUSR1 resets the kill switch; SIGTERM still
// ends with exit 0 and nothing live.
func TestDaemonSignals(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real daemon; skipped with -short")
	}
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 41, markets: 4})
	dir := t.TempDir()
	bc := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: 2, cycle: "200ms",
		levels: `[{ offset = "0.05", size = "10" }]`}
	cfg := bc.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	waitOpen := func(want int) int {
		deadline := time.Now().Add(10 * time.Second)
		n := 0
		for time.Now().Before(deadline) {
			if n = len(se.ex.OpenOrders(se.acct.APIKey)); n == want {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return n
	}
	// One band level: a bid on each token of each of the 2 markets.
	if n := waitOpen(4); n != 4 {
		t.Fatalf("%d live orders before the reload, want 4", n)
	}

	// A valid change: tighter quotes from the next cycle on.
	bc.levels = `[{ offset = "0.01", size = "10" }, { offset = "0.02", size = "10" }]`
	bc.write(t, dir)
	p.signal(syscall.SIGHUP)
	if _, ok := p.waitMsg(10*time.Second, "strategy parameters reloaded"); !ok {
		t.Fatalf("no reload after SIGHUP; log:\n%s", p.tail(20))
	}
	// Two band levels now: twice the orders.
	if n := waitOpen(8); n != 8 {
		t.Fatalf("%d live orders after reloading two levels, want 8", n)
	}
	reloads := len(p.linesWith("strategy parameters reloaded"))

	// An invalid change: rejected, the old parameters stay, quoting goes on.
	if err := os.WriteFile(cfg, []byte("[strategy]\nmodel = \"nonsense\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGHUP)
	if _, ok := p.waitMsg(10*time.Second, "SIGHUP: new configuration rejected; keeping the old one"); !ok {
		t.Fatalf("invalid config not rejected; log:\n%s", p.tail(20))
	}
	time.Sleep(600 * time.Millisecond) // a few more cycles
	if p.exited() {
		t.Fatalf("daemon exited after an invalid reload; log:\n%s", p.tail(20))
	}
	if n := len(p.linesWith("strategy parameters reloaded")); n != reloads {
		t.Fatalf("an invalid config was applied (%d reloads, want %d)", n, reloads)
	}
	if n := len(se.ex.OpenOrders(se.acct.APIKey)); n != 8 {
		t.Fatalf("%d live orders after the rejected reload, want the old parameters' 8", n)
	}

	p.signal(syscall.SIGUSR1)
	if _, ok := p.waitMsg(10*time.Second, "kill switch reset by operator"); !ok {
		t.Fatalf("SIGUSR1 did not reset the kill switch; log:\n%s", p.tail(20))
	}

	p.signal(syscall.SIGTERM)
	ws, ok := p.wait(30 * time.Second)
	if !ok || ws.ExitStatus() != 0 {
		t.Fatalf("exit after SIGTERM: %v (ok %v); log:\n%s", ws, ok, p.tail(20))
	}
	if open := se.ex.OpenOrders(se.acct.APIKey); len(open) != 0 {
		t.Fatalf("%d orders live after SIGTERM", len(open))
	}
}

package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
)

// The guard test's settings: books stall from stallAt after the daemon
// starts; the book-age limit and the guard's period bound how long the
// orders may stay live after that.
const (
	stallAt      = 12 * time.Second
	guardBookAge = 6 * time.Second
	guardPeriod  = time.Second
	// guardLatency allows the guard's cancels themselves (loopback, but
	// under -race on a shared machine).
	guardLatency = 500 * time.Millisecond
)

// TestDaemonGuardCancelsWhenBooksStall runs the real daemon against an
// exchange whose POST /books stops answering at second 12. No cycle can
// complete any more, so the loop's own stale-book protection never runs:
// the guard must cancel every live order within risk.max_book_age plus one
// guard period of the stall, log one line saying why, fail /readyz with the
// reason, and keep anything new from being placed. SIGTERM then exits 0
// with nothing live and the journal settled.
func TestDaemonGuardCancelsWhenBooksStall(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 23, markets: 6})
	dir := t.TempDir()
	statePath := filepath.Join(dir, "mmbot.db")
	cfg := botConfig{se: se, statePath: statePath, markets: 4, cycle: "200ms",
		levels: `[{ offset = "0.02", size = "10" }, { offset = "0.04", size = "10" }]`,
		strategy: fmt.Sprintf(`
[strategy.guard]
period = %q
max_cycle_gap = "20s"`, guardPeriod),
		risk: fmt.Sprintf(`max_book_age = %q
max_position = "1000"
max_total_position = "4000"
max_drawdown = "100000"
cooldown = "0s"`, guardBookAge),
	}.write(t, dir)
	start := time.Now()
	stall := start.Add(stallAt)
	if err := se.ex.SetFaults(sim.Faults{Stall: []string{"POST /books"}, StallFrom: stall}); err != nil {
		t.Fatal(err)
	}
	p := startDaemon(t, bin, cfg)
	p.mustReady(stallAt - 2*time.Second)
	l, ok := p.waitMsg(5*time.Second, "metrics, /healthz and /readyz")
	if !ok {
		t.Fatal("no metrics listen line")
	}
	readyz := l.str("listen") + "/readyz"
	waitFor(t, 5*time.Second, "orders live before the stall", func() bool { return len(se.ex.OpenOrders(se.acct.APIKey)) >= 8 })

	time.Sleep(time.Until(stall))
	before := len(se.ex.OpenOrders(se.acct.APIKey))
	if code, body := httpGet(t, readyz); code != http.StatusOK {
		t.Fatalf("/readyz = %d %s when the stall starts", code, body)
	}
	bound := guardBookAge + guardPeriod + guardLatency
	var cleared time.Duration
	for {
		n := len(se.ex.OpenOrders(se.acct.APIKey))
		if n == 0 {
			cleared = time.Since(stall)
			break
		}
		if time.Since(stall) > bound {
			t.Fatalf("%d of %d orders still live %s after POST /books stalled (limit %s + period %s); log:\n%s",
				n, before, time.Since(stall).Round(time.Millisecond), guardBookAge, guardPeriod, p.tail(20))
		}
		time.Sleep(10 * time.Millisecond)
	}
	why, ok := p.waitMsg(time.Second, "guard: the loop is blind: tripping the kill switch and cancelling every live order")
	if !ok {
		t.Fatalf("no log line saying why; log:\n%s", p.tail(20))
	}
	if why.str("reason") != "stale_quotes" || !strings.Contains(why.str("detail"), "old (max 6s") {
		t.Fatalf("the guard's line: %v", why)
	}
	if n := len(p.linesWith(why.msg())); n != 1 {
		t.Fatalf("%d lines saying why, want 1", n)
	}
	guardCancelled := 0
	for _, l := range p.linesWith("guard: cancelled orders of the blind loop") {
		if c, ok := l["cancelled"].(float64); ok {
			guardCancelled += int(c)
		}
	}
	t.Logf("POST /books stalled at +%s; %d orders live then, all cancelled %s later (limit %s + period %s); the guard cancelled %d",
		stallAt, before, cleared.Round(time.Millisecond), guardBookAge, guardPeriod, guardCancelled)
	if code, body := httpGet(t, readyz); code != http.StatusServiceUnavailable || !strings.Contains(body, "stale_quotes") {
		t.Fatalf("/readyz = %d %q while the loop is blind, want 503 naming stale_quotes", code, body)
	}

	// Nothing new is placed while the loop stays blind.
	tripped := time.Now()
	time.Sleep(3 * guardPeriod)
	for _, r := range se.ex.RequestLog() {
		if r.Method == http.MethodPost && r.Path == "/clob/orders" && r.Time.After(tripped) {
			t.Fatalf("an order batch was sent %s after the guard tripped", r.Time.Sub(tripped))
		}
	}
	if n := len(se.ex.OpenOrders(se.acct.APIKey)); n != 0 {
		t.Fatalf("%d orders live again", n)
	}

	p.signal(syscall.SIGTERM)
	ws, ok := p.wait(20 * time.Second)
	if !ok || ws.ExitStatus() != 0 {
		t.Fatalf("exit after SIGTERM: %v (ok %v); log:\n%s", ws, ok, p.tail(30))
	}
	if jv := readJournal(t, statePath); len(jv.nonFinal) != 0 {
		t.Fatalf("%d non-final journal orders after shutdown", len(jv.nonFinal))
	}
}

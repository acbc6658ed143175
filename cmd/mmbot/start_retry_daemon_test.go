package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
)

// gate stands in front of the simulated exchange: until it is opened it
// answers every request in its mode, "drop" (the connection closes with no
// answer: the exchange is unreachable) or "401"; open, it passes requests on.
type gate struct {
	next http.Handler
	mu   sync.Mutex
	mode string // "" when open
	hits int    // requests answered while closed
}

func (g *gate) set(mode string) {
	g.mu.Lock()
	g.mode = mode
	g.mu.Unlock()
}

func (g *gate) closedHits() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hits
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	mode := g.mode
	if mode != "" {
		g.hits++
	}
	g.mu.Unlock()
	switch mode {
	case "":
		g.next.ServeHTTP(w, r)
	case "401":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"unauthorized"}`))
	default: // drop
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
			}
		}
	}
}

// gated puts a gate in front of se and returns the copy of se that points
// at it.
func gated(t *testing.T, se *simEnv, mode string) (*simEnv, *gate) {
	t.Helper()
	g := &gate{next: se.tr, mode: mode}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	c := *se
	c.urls = sim.URLs{Data: srv.URL + "/data", Catalog: srv.URL + "/catalog", CLOB: srv.URL + "/clob"}
	return &c, g
}

// TestDaemonWaitsForExchangeAtStart: an exchange that cannot be reached at
// start does not make `mmbot run` exit (which, under the unit's start
// limits, would leave the service failed after an outage at boot): it is
// not ready, it tells systemd why and when the next try is and extends the
// start timeout, and once the exchange answers it reconciles, sends READY=1
// and quotes. The backoff is the default [exchange.start_retry].
func TestDaemonWaitsForExchangeAtStart(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 41, markets: 3})
	ge, g := gated(t, se, "drop")
	dir := t.TempDir()
	cfg := botConfig{se: ge, statePath: filepath.Join(dir, "mmbot.db"), markets: 2}.write(t, dir)
	sock, rec := listenNotify(t)
	p := startDaemon(t, bin, cfg, "NOTIFY_SOCKET="+sock)
	waitFor(t, 15*time.Second, "two STATUS lines about the wait", func() bool {
		n := 0
		for _, m := range rec.all() {
			if strings.HasPrefix(m, "STATUS=waiting for the exchange") {
				n++
			}
		}
		return n >= 2 || p.exited()
	})
	if p.exited() {
		t.Fatalf("the daemon exited while the exchange was unreachable; log:\n%s", p.tail(20))
	}
	if rec.index("READY=1") >= 0 {
		t.Fatalf("READY=1 while the exchange was unreachable: %q", rec.all())
	}
	if rec.index("EXTEND_TIMEOUT_USEC=") < 0 {
		t.Errorf("the start timeout was not extended: %q", rec.all())
	}
	msgs := strings.Join(rec.all(), "\n")
	if !strings.Contains(msgs, "next try in") || !strings.Contains(msgs, "market selection") {
		t.Errorf("the status does not say why and when the next try is: %q", msgs)
	}
	g.set("")
	p.mustReady(30 * time.Second)
	waitFor(t, 20*time.Second, "orders on the exchange", func() bool { return len(se.ex.OpenOrders(se.acct.APIKey)) > 0 })
	if i, j := rec.index("STATUS=waiting for the exchange"), rec.index("READY=1"); i < 0 || j < i {
		t.Errorf("notifications out of order: %q", rec.all())
	}
	p.signal(syscall.SIGTERM)
	if ws, ok := p.wait(30 * time.Second); !ok || ws.ExitStatus() != 0 {
		t.Fatalf("after SIGTERM: %v; log:\n%s", ws, p.tail(20))
	}
}

// TestDaemonStoppedWhileWaitingExitsClean: SIGTERM during the wait for the
// exchange ends the daemon at once with status 0, nothing quoted.
func TestDaemonStoppedWhileWaitingExitsClean(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 42, markets: 2})
	ge, _ := gated(t, se, "drop")
	dir := t.TempDir()
	cfg := botConfig{se: ge, statePath: filepath.Join(dir, "mmbot.db"), markets: 1,
		exchange: "[exchange.start_retry]\nbase_delay = \"30s\"\nmax_delay = \"1m\""}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	if _, ok := p.waitLine(15*time.Second, func(l logLine) bool { return strings.Contains(l.msg(), "cannot be reached") }); !ok {
		t.Fatalf("no line about the wait; log:\n%s", p.tail(20))
	}
	start := time.Now()
	p.signal(syscall.SIGTERM)
	ws, ok := p.wait(10 * time.Second)
	if !ok || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("SIGTERM during the wait: %v (waited %v), want exit 0; log:\n%s", ws, ok, p.tail(20))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s to stop during a 30 s pause", d)
	}
	if _, ok := p.waitMsg(time.Second, "stopped while waiting for the exchange: nothing was quoted"); !ok {
		t.Errorf("no line saying why it stopped; log:\n%s", p.tail(10))
	}
	if len(se.tr.Batches()) > 0 {
		t.Error("orders were placed")
	}
}

// TestDaemonRefusedCredentialsExitAtOnce: an answer retrying cannot fix
// (401) ends `mmbot run` at once with status 1.
func TestDaemonRefusedCredentialsExitAtOnce(t *testing.T) {
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 43, markets: 2})
	ge, g := gated(t, se, "401")
	dir := t.TempDir()
	cfg := botConfig{se: ge, statePath: filepath.Join(dir, "mmbot.db"), markets: 1}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	ws, ok := p.wait(15 * time.Second)
	if !ok || !ws.Exited() || ws.ExitStatus() != 1 {
		t.Fatalf("after a 401: %v (exited: %v), want exit 1; log:\n%s", ws, ok, p.tail(20))
	}
	if n := g.closedHits(); n != 1 {
		t.Errorf("%d requests, want 1: a 401 is not retried", n)
	}
	if !strings.Contains(p.tail(5), "401") {
		t.Errorf("the error does not say what the exchange answered:\n%s", p.tail(5))
	}
}

package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/strategy/loop"
)

// restartableServer serves a handler on one loopback port that can stop
// listening (connections refused) and listen again on the same port, the
// exchange's state kept: an exchange process restarting.
type restartableServer struct {
	t    testing.TB
	h    http.Handler
	addr string
	mu   sync.Mutex
	srv  *http.Server
	done chan struct{}
}

func newRestartableServer(t testing.TB, h http.Handler) *restartableServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &restartableServer{t: t, h: h, addr: ln.Addr().String()}
	s.serve(ln)
	t.Cleanup(s.down)
	return s
}

func (s *restartableServer) serve(ln net.Listener) {
	srv := &http.Server{Handler: s.h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	s.mu.Lock()
	s.srv, s.done = srv, done
	s.mu.Unlock()
}

// down closes the listener and every connection.
func (s *restartableServer) down() {
	s.mu.Lock()
	srv, done := s.srv, s.done
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
		<-done
	}
}

// up listens on the same port again.
func (s *restartableServer) up() {
	s.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port may linger a moment
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("listen again on %s: %v", s.addr, err)
	}
	s.serve(ln)
}

func (s *restartableServer) url() string { return "http://" + s.addr }

// TestDaemonExchangeRestart is issue 20 point 7 with the real binary: the
// exchange goes away for a while, twice — first answering 503 "service not
// ready" to everything, then refusing connections (its listener closed, its
// state kept) — and comes back. Each time the guard trips the kill switch
// (stale_quotes) and cancels as soon as the exchange answers again; the
// trip then clears by itself once the exchange has answered normally for
// risk.auto_clear_after, without an operator, logged and counted, and
// quoting resumes. The 503s cost no order errors. The away time is 15 s
// (RESTART_LONG=1: 30 s, as measured on the live exchange).
func TestDaemonExchangeRestart(t *testing.T) {
	t.Parallel() // it waits on its clock
	bin := needDaemon(t)
	away := 15 * time.Second
	if os.Getenv("RESTART_LONG") == "1" {
		away = 30 * time.Second
	}
	const autoClear = 5 * time.Second
	se := newSimEnv(t, simOptions{seed: 31, markets: 8})
	rs := newRestartableServer(t, se.tr)
	pse := *se
	pse.urls = sim.URLs{Data: rs.url() + "/data", Catalog: rs.url() + "/catalog", CLOB: rs.url() + "/clob"}
	dir := t.TempDir()
	cfg := botConfig{se: &pse, statePath: filepath.Join(dir, "mmbot.db"), markets: 6, cycle: "200ms",
		levels: `[{ offset = "0.02", size = "10" }, { offset = "0.04", size = "10" }]`,
		risk: fmt.Sprintf(`max_book_age = "6s"
max_position = "1000"
max_total_position = "6000"
max_drawdown = "100000"
max_consecutive_errors = 3
cooldown = "0s"
auto_clear_after = %q
auto_clear_max_per_day = 4`, autoClear),
		strategy: `
[strategy.guard]
period = "1s"
max_cycle_gap = "8s"`,
	}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	waitLive := func(want func(int) bool, timeout time.Duration) (time.Duration, bool) {
		start := time.Now()
		for time.Since(start) < timeout {
			if want(len(se.ex.OpenOrders(se.acct.APIKey))) {
				return time.Since(start), true
			}
			time.Sleep(50 * time.Millisecond)
		}
		return time.Since(start), false
	}
	if _, ok := waitLive(func(n int) bool { return n > 0 }, 20*time.Second); !ok {
		t.Fatalf("nothing quoted; log:\n%s", p.tail(30))
	}
	for i, mode := range []string{"503", "refused"} {
		switch mode {
		case "503":
			if err := se.ex.SetFaults(sim.Faults{NotReady: true}); err != nil {
				t.Fatal(err)
			}
		case "refused":
			rs.down()
		}
		time.Sleep(away)
		back := time.Now()
		switch mode {
		case "503":
			if err := se.ex.SetFaults(sim.Faults{}); err != nil {
				t.Fatal(err)
			}
		case "refused":
			rs.up()
		}
		cancelled, ok := waitLive(func(n int) bool { return n == 0 }, 10*time.Second)
		if !ok {
			t.Fatalf("%s: orders still live 10 s after the exchange came back; log:\n%s", mode, p.tail(40))
		}
		seen := 0 // waitLine reads from the first line: the i-th clear is this one
		cleared, ok := p.waitLine(30*time.Second, func(l logLine) bool {
			if l.msg() != loop.MsgAutoCleared {
				return false
			}
			seen++
			return seen > i
		})
		if !ok {
			t.Fatalf("%s: the trip did not clear by itself within 30 s of the exchange's return; log:\n%s", mode, p.tail(40))
		}
		clearedAfter := time.Since(back)
		if mode == "503" && cleared.str("reason") == "consecutive_errors" {
			t.Errorf("503: tripped for order errors: the not-ready answers were counted")
		}
		if _, ok := waitLive(func(n int) bool { return n > 0 }, 30*time.Second); !ok {
			t.Fatalf("%s: nothing quoted again; log:\n%s", mode, p.tail(40))
		}
		t.Logf("%s for %s: 0 live %s after the exchange came back; the trip (%s) cleared by itself %s after, quoting resumed %s after",
			mode, away, cancelled.Round(10*time.Millisecond), cleared.str("reason"), clearedAfter.Round(10*time.Millisecond),
			time.Since(back).Round(10*time.Millisecond))
	}
	if n := len(p.linesWith(loop.MsgAutoCleared)); n != 2 {
		t.Errorf("%d automatic clears logged, want 2", n)
	}
	p.signal(syscall.SIGTERM)
	if ws, ok := p.wait(60 * time.Second); !ok || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("ended %v (waited: %v), want exit 0; log:\n%s", ws, ok, p.tail(30))
	}
}

package main

import (
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/state"
)

// The restart tests' caps: the spec's two order windows (10 s and 10 min)
// scaled to 2 s and 20 s, and POST /books on the 20 s window too, so that
// five processes (four restarts) fit in one long window of a test that runs
// for about half a minute. Fill 0.5 lets a window hold half its cap and
// makes each bucket's burst half of that (docs/protocol.md, "The bucket
// math"): a process that started with full buckets would put its
// predecessors' usage plus a quarter of the cap into a window. The exchange
// enforces the same caps (exact sliding windows, answered 429), and the
// tests count every request that reached it, answered or refused.
const (
	rcShort = 2 * time.Second
	rcLong  = 20 * time.Second
	rcFill  = 0.5
)

var restartCaps = []struct {
	name string // [exchange.limits] key
	cap  exchange.Cap
}{
	{"post_order_burst", exchange.Cap{Requests: 24, Window: rcShort}},
	{"post_order_sustained", exchange.Cap{Requests: 80, Window: rcLong}},
	{"delete_order_burst", exchange.Cap{Requests: 40, Window: rcShort}},
	{"delete_order_sustained", exchange.Cap{Requests: 200, Window: rcLong}},
	{"clob_books", exchange.Cap{Requests: 30, Window: rcLong}},
}

func restartLimits() (exchange.Limits, string) {
	l := exchange.DefaultLimits()
	l.Fill = rcFill
	lines := []string{fmt.Sprintf("fill = %v", rcFill)}
	for _, c := range restartCaps {
		switch c.name {
		case "post_order_burst":
			l.PostOrderBurst = c.cap
		case "post_order_sustained":
			l.PostOrderSustained = c.cap
		case "delete_order_burst":
			l.DeleteOrderBurst = c.cap
		case "delete_order_sustained":
			l.DeleteOrderSustained = c.cap
		case "clob_books":
			l.CLOBBooks = c.cap
		}
		lines = append(lines, fmt.Sprintf("%s = { requests = %d, window = %q }", c.name, c.cap.Requests, c.cap.Window))
	}
	return l, strings.Join(lines, "\n")
}

// TestDaemonRestartsKeepCaps restarts the real daemon four times (SIGTERM,
// then a new process on the same journal) within one long window of the
// order caps, while it requotes on every price move of a volatile exchange
// and so wants far more orders and book reads than the caps allow. Counted
// at the exchange, every window of every cap must hold at most fill × the
// cap, over all five processes, and nothing may have been throttled.
func TestDaemonRestartsKeepCaps(t *testing.T) { testRestartCaps(t, false) }

// TestDaemonKilledKeepsCaps is the same with SIGKILL: each process dies
// with up to a second of its usage not yet saved and its orders still live
// (the next one reconciles them), and at the end mmbot cancel-all cancels
// the last one's orders, its requests counted with the rest.
func TestDaemonKilledKeepsCaps(t *testing.T) { testRestartCaps(t, true) }

func testRestartCaps(t *testing.T, kill bool) {
	t.Parallel()
	bin := needDaemon(t)
	lim, limitLines := restartLimits()
	se := newSimEnv(t, simOptions{seed: 17, markets: 6, limits: &lim,
		flow: sim.FlowConfig{TakerRate: 2, TakerSize: 10, Volatility: 4, Informed: 0.2}})
	dir := t.TempDir()
	cfg := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: 2, cycle: "200ms",
		// Every price move requotes, and no adverse-selection pulls or
		// pauses hold quotes back: demand far above the caps.
		strategy: "price_tolerance_ticks = 0\nadverse = { enabled = false }",
		limits:   limitLines,
		risk: `max_position = "100"
max_total_position = "400"
max_drawdown = "100000"
max_consecutive_errors = 1000
max_error_rate = 1
max_book_age = "60s"
cooldown = "0s"`,
	}.write(t, dir)

	const processes = 5 // four restarts
	first := time.Now()
	for i := range processes {
		p := startDaemon(t, bin, cfg)
		p.mustReady(30 * time.Second)
		life := 2*time.Second + time.Duration(i*397%1000)*time.Millisecond
		if i == processes-1 {
			life = max(rcLong-time.Since(first), 0) + rcShort // the last one runs on past the long window
		}
		time.Sleep(life) // a real-time process runs
		sig := syscall.SIGTERM
		if kill {
			sig = syscall.SIGKILL
		}
		p.signal(sig)
		ws, ok := p.wait(40 * time.Second)
		if !ok {
			t.Fatalf("process %d still running 40 s after its signal; log:\n%s", i, p.tail(30))
		}
		if !kill && (!ws.Exited() || ws.ExitStatus() != 0) {
			t.Fatalf("process %d ended with %v, want exit 0; log:\n%s", i, ws, p.tail(30))
		}
		if got := p.linesWith("rate-limit buckets start from the journal's record"); i > 0 && len(got) == 0 {
			t.Errorf("process %d did not start from the journal's rate-limit record; log:\n%s", i, p.tail(30))
		}
		t.Logf("process %d: %v after %s", i, ws, life.Round(time.Millisecond))
	}
	if kill {
		// The last one's orders are still live: mmbot cancel-all
		// cancels them, starting from the dead daemon's record too.
		out, err := exec.Command(bin, "cancel-all", "-c", cfg).CombinedOutput()
		if err != nil {
			t.Fatalf("mmbot cancel-all: %v\n%s", err, out)
		}
		t.Logf("mmbot cancel-all: %s", strings.TrimSpace(string(out)))
	}
	span := time.Since(first)
	se.clock.pause()
	st, err := state.Open(filepath.Join(dir, "mmbot.db"), state.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, ok, err := st.RateSpent()
	_ = st.Close()
	if err != nil || !ok || !rec.Final {
		t.Errorf("the journal's rate-limit record after the last process: final %v, present %v, err %v; want a final one", rec.Final, ok, err)
	}

	// Count from the exchange's side: every request that reached it.
	counts := restartCounts(se)
	t.Logf("%d processes in %s; worst windows, counted at the exchange:", processes, span.Round(100*time.Millisecond))
	for _, c := range restartCaps {
		n := maxInWindow(counts.units[c.name], c.cap.Window)
		t.Logf("  %-22s %4d in %s, cap %d (%.3f); %d in all", c.name, n, c.cap.Window, c.cap.Requests,
			float64(n)/float64(c.cap.Requests), total(counts.units[c.name]))
		if ceiling := int(rcFill * float64(c.cap.Requests)); n > ceiling {
			t.Errorf("%s: %d in one window of %s, cap %d, want at most fill × the cap = %d", c.name, n, c.cap.Window, c.cap.Requests, ceiling)
		}
	}
	if counts.throttled > 0 {
		t.Errorf("the exchange throttled %d requests (%s)", counts.throttled, counts.throttledWhat)
	}
	// The caps bound the test, not the daemon's appetite: otherwise the
	// test proves nothing: the busiest long window must come to 3/4 of its
	// ceiling (40 of 80). After a kill the successor counts all that the
	// dead process's buckets could still give as spent: at fill 0.5 each
	// kill costs up to the burst, half the ceiling, so the killed chain
	// sends less.
	want := 30
	if kill {
		want = 4
	}
	if n := maxInWindow(counts.units["post_order_sustained"], rcLong); n < want {
		t.Errorf("only %d orders in the busiest %s: the daemon never approached the cap", n, rcLong)
	}
	if d := se.tr.Duplicates(); len(d) > 0 {
		t.Errorf("orders submitted more than once: %v", d)
	}
	if left := se.ex.OpenOrders(se.acct.APIKey); len(left) > 0 {
		t.Errorf("%d orders live at the end", len(left))
	}
}

// restartTally is what reached the exchange, per cap of restartCaps.
type restartTally struct {
	units         map[string][]timedUnits
	throttled     int
	throttledWhat string
}

func restartCounts(se *simEnv) restartTally {
	tl := restartTally{units: map[string][]timedUnits{}}
	for _, b := range se.tr.Batches() {
		for _, k := range []string{"post_order_burst", "post_order_sustained"} {
			tl.units[k] = append(tl.units[k], timedUnits{b.Time, b.Orders})
		}
	}
	seen := map[string]int{}
	for _, r := range se.ex.RequestLog() {
		switch {
		case r.Method == http.MethodDelete && r.Path == "/clob/order":
			for _, k := range []string{"delete_order_burst", "delete_order_sustained"} {
				tl.units[k] = append(tl.units[k], timedUnits{r.Time, 1})
			}
		case r.Method == http.MethodPost && r.Path == "/clob/books":
			tl.units["clob_books"] = append(tl.units["clob_books"], timedUnits{r.Time, 1})
		}
		if r.Status == http.StatusTooManyRequests {
			tl.throttled++
			seen[r.Method+" "+r.Path]++
		}
	}
	tl.throttledWhat = fmt.Sprint(seen)
	return tl
}

func total(xs []timedUnits) int {
	n := 0
	for _, x := range xs {
		n += x.n
	}
	return n
}

package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/state"
)

// crashGrace is the test daemons' in-flight grace (state.inflight_grace 0:
// exchange.request_timeout 5s + 5s), with a second of slack.
const crashGrace = 11 * time.Second

var crashSeed = flag.Uint64("crashseed", 0, "seed of TestDaemonCrashRestart's kill schedule (0: from the clock; the test logs it)")

// crashKind is how one run of the daemon ends.
type crashKind int

const (
	killRandom       crashKind = iota // SIGKILL from the test after a random time
	killAfterIntents                  // MMBOT_CRASHPOINT=after-intents:N
	killAfterSend                     // MMBOT_CRASHPOINT=after-send:N
)

func (k crashKind) String() string {
	return [...]string{"random SIGKILL", "after-intents", "after-send"}[k]
}

// TestDaemonCrashRestart kills the real daemon with SIGKILL 54 times while
// it trades against the simulated exchange, a third of them at random
// moments and the others at the two instants a random kill rarely hits:
// right after an intents commit (before the send) and right after POST
// /orders returned (before its results are journaled). After every kill,
// and again after every restart once the daemon logged its ready line
// (reconciliation done), with the order flow paused and the daemon frozen
// by SIGSTOP, it checks: every order live on the exchange is a non-final
// order of the journal, no order hash was ever submitted twice, and (after
// reconciliation) the journal's positions equal the exchange's balances.
// It ends with a SIGTERM and a clean final check.
func TestDaemonCrashRestart(t *testing.T) {
	bin := needDaemon(t)
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill schedule seed %d (rerun with -crashseed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x63726173))

	se := newSimEnv(t, simOptions{seed: 5, markets: 6,
		flow: sim.FlowConfig{TakerRate: 3, TakerSize: 10, Volatility: 4, Informed: 0.2}})
	dir := t.TempDir()
	statePath := filepath.Join(dir, "mmbot.db")
	cfg := botConfig{se: se, statePath: statePath, markets: 3, cycle: "150ms",
		levels: `[{ offset = "0.01", size = "10" }, { offset = "0.02", size = "10" }]`,
		risk: `max_position = "60"
max_total_position = "150"
max_drawdown = "100000"
cooldown = "0s"`,
		strategy: "price_tolerance_ticks = 0", // every price change requotes: the crash points come sooner
	}.write(t, dir)

	const runs = 54
	var count [3]int
	var fired [3]int
	start := time.Now()
	se.clock.pause()
	for i := range runs {
		kind := crashKind(i % 3)
		n := 1 + rng.IntN(3)
		var env []string
		switch kind {
		case killAfterIntents:
			env = append(env, fmt.Sprintf("MMBOT_CRASHPOINT=after-intents:%d", n))
		case killAfterSend:
			env = append(env, fmt.Sprintf("MMBOT_CRASHPOINT=after-send:%d", n))
		}
		p := startDaemon(t, bin, cfg, env...)
		p.mustReady(30 * time.Second)
		crashCheck(t, se, p, statePath, fmt.Sprintf("run %d after restart", i), true)
		se.clock.resume()
		count[kind]++
		selfKilled := false
		if kind == killRandom {
			time.Sleep(time.Duration(50+rng.IntN(1450)) * time.Millisecond) // the kill moment
			p.signal(syscall.SIGKILL)
		} else if _, ok := p.wait(10 * time.Second); ok {
			selfKilled = true
		} else {
			t.Logf("run %d: crash point %s:%d not reached in 10 s; killing it", i, kind, n)
			p.signal(syscall.SIGKILL)
		}
		ws, ok := p.wait(10 * time.Second)
		se.clock.pause()
		if !ok {
			t.Fatalf("run %d: daemon did not die", i)
		}
		if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("run %d (%s): daemon ended with %v, want SIGKILL; log:\n%s", i, kind, ws, p.tail(30))
		}
		if selfKilled {
			fired[kind]++
			crashWindowHit(t, se, statePath, kind, i)
		}
		crashCheck(t, se, p, statePath, fmt.Sprintf("run %d after %s", i, kind), false)
		if t.Failed() {
			t.Fatalf("stopping after run %d (seed %d); last log lines:\n%s", i, seed, p.tail(30))
		}
	}
	t.Logf("%d kills in %s: %d random, %d after-intents (%d by the crash point), %d after-send (%d by the crash point)",
		runs, time.Since(start).Round(time.Second), count[killRandom], count[killAfterIntents], fired[killAfterIntents],
		count[killAfterSend], fired[killAfterSend])
	if fired[killAfterIntents] < count[killAfterIntents]/2 || fired[killAfterSend] < count[killAfterSend]/2 {
		t.Errorf("crash points fired too rarely: %v of %v", fired, count)
	}

	// The last run ends with SIGTERM: nothing live, nothing open, all booked.
	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	crashCheck(t, se, p, statePath, "final run after restart", true)
	se.clock.resume()
	time.Sleep(time.Second) // let it trade a little before the stop
	p.signal(syscall.SIGTERM)
	ws, ok := p.wait(40 * time.Second)
	se.clock.pause()
	if !ok || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("final run: ended %v (waited: %v), want exit 0; log:\n%s", ws, ok, p.tail(30))
	}
	if left := se.ex.OpenOrders(se.acct.APIKey); len(left) > 0 {
		t.Errorf("%d orders live after SIGTERM", len(left))
	}
	jv := readJournal(t, statePath)
	if len(jv.nonFinal) > 0 {
		t.Errorf("%d non-final journal orders after SIGTERM", len(jv.nonFinal))
	}
	for _, d := range diffPositions(jv.positions, se.shares(t)) {
		t.Errorf("after SIGTERM: %s", d)
	}
	if d := se.tr.Duplicates(); len(d) > 0 {
		t.Errorf("orders submitted more than once: %v", d)
	}
	t.Logf("%d orders journaled, %d submitted, %d fills booked", len(jv.all), se.tr.Distinct(), len(jv.fills))
	if len(jv.fills) == 0 {
		t.Errorf("no fill in the whole crash test: the positions check checked nothing")
	}
}

// crashCheck checks the invariants of a crash at one instant: with the
// flow paused, and the daemon either dead or frozen (SIGSTOP) so that the
// exchange and the journal are read at one point of its life.
func crashCheck(t *testing.T, se *simEnv, p *daemonProc, statePath, when string, reconciled bool) {
	t.Helper()
	if !p.exited() {
		p.signal(syscall.SIGSTOP)
		defer p.signal(syscall.SIGCONT)
	}
	open := se.ex.OpenOrders(se.acct.APIKey)
	jv := readJournal(t, statePath)
	for _, id := range open {
		o, ok := jv.known[strings.ToLower(id)]
		switch {
		case !ok:
			t.Errorf("%s: order %s… is live on the exchange and unknown to the journal", when, short(id))
		case o.State.Final():
			t.Errorf("%s: order %s… is live on the exchange and %s in the journal", when, short(id), o.State)
		}
	}
	if d := se.tr.Duplicates(); len(d) > 0 {
		t.Errorf("%s: orders submitted more than once: %v", when, d)
	}
	if reconciled {
		for _, d := range diffPositions(jv.positions, se.shares(t)) {
			t.Errorf("%s: positions differ: %s", when, d)
		}
		for h, o := range jv.nonFinal {
			if o.State == state.Intent || o.State == state.Sent {
				// An order whose answer never came stays possibly live
				// until its in-flight grace (request_timeout 5s + 5s) is
				// over: it may still be on its way.
				if se.tr.Count(h) == 0 && time.Since(o.CreatedAt) > crashGrace {
					t.Errorf("%s: order %s… never reached the exchange and is still %s after reconciliation and its grace", when, short(h), o.State)
				}
			}
		}
	}
}

// crashWindowHit checks that a crash point's kill left what its window
// means in the journal: after an intents commit, intents the exchange never
// received; after a send, intents the exchange did receive.
func crashWindowHit(t *testing.T, se *simEnv, statePath string, kind crashKind, run int) {
	t.Helper()
	jv := readJournal(t, statePath)
	unsent, sent := 0, 0
	for h, o := range jv.nonFinal {
		if o.State != state.Intent {
			continue
		}
		if se.tr.Count(h) == 0 {
			unsent++
		} else {
			sent++
		}
	}
	switch {
	case kind == killAfterIntents && unsent == 0:
		t.Errorf("run %d: killed after an intents commit, but the journal holds no unsent intent", run)
	case kind == killAfterSend && sent == 0:
		t.Errorf("run %d: killed after a send, but the journal holds no sent order still recorded as an intent", run)
	}
}

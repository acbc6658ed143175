package main

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy/loop"
)

// A request of a cycle gets two cycles, at least 1 s, at most
// exchange.request_timeout.
func TestRequestTimeout(t *testing.T) {
	for _, c := range []struct{ cycle, http, want time.Duration }{
		{200 * time.Millisecond, 10 * time.Second, time.Second},
		{time.Second, 10 * time.Second, 2 * time.Second},
		{10 * time.Second, 5 * time.Second, 5 * time.Second},
	} {
		cfg := configs.Defaults()
		cfg.Strategy.Cycle, cfg.Exchange.RequestTimeout = configs.Duration(c.cycle), configs.Duration(c.http)
		if got := requestTimeout(&cfg); got != c.want {
			t.Errorf("cycle %s, request_timeout %s: %s, want %s", c.cycle, c.http, got, c.want)
		}
		var lc loop.Config
		daemonLoop(&lc, &cfg, false)
		if lc.Concurrency != loopConcurrency || lc.RequestTimeout != c.want {
			t.Errorf("live loop: %d concurrent, %s", lc.Concurrency, lc.RequestTimeout)
		}
		daemonLoop(&lc, &cfg, true)
		if lc.Concurrency != 1 {
			t.Errorf("dry run: %d concurrent, want 1", lc.Concurrency)
		}
	}
}

func TestGuardConfigNeedsTwoCycles(t *testing.T) {
	cfg := configs.Defaults()
	gc, err := guardConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if gc.Period != time.Second || gc.MaxCycleGap != 15*time.Second || gc.RequestTimeout != guardRequestTimeout {
		t.Fatalf("defaults: %+v", gc)
	}
	cfg.Strategy.Cycle = configs.Duration(10 * time.Second)
	if _, err := guardConfig(&cfg); err == nil || !strings.Contains(err.Error(), "strategy.guard.max_cycle_gap") {
		t.Fatalf("a gap under two cycles: %v", err)
	}
}

// A look that finds the loop blind fails /readyz with the guard's reason at
// once (no cycle completes to do it) and counts the trip; a look that finds
// it fine changes nothing.
func TestOnGuardFailsReadiness(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{health: &metrics.Health{}, obs: &observer{m: m}}
	d.health.SetReady(true, "")
	d.onGuard(loop.GuardReport{})
	if ok, _ := d.health.Ready(); !ok {
		t.Fatal("a quiet look failed readiness")
	}
	d.onGuard(loop.GuardReport{Reason: risk.TripStaleQuotes, Detail: "4 live orders rest on books up to 11s old", Started: true, Tripped: true, Cancelled: 4})
	ok, why := d.health.Ready()
	if ok || !strings.Contains(why, "stale_quotes") || !strings.Contains(why, "11s old") {
		t.Fatalf("readiness after a blind look: %v %q", ok, why)
	}
	if v := testutil.ToFloat64(m.KillSwitchTrips.WithLabelValues("stale_quotes")); v != 1 {
		t.Fatalf("trips counted: %v", v)
	}
	if v := testutil.ToFloat64(m.KillSwitch); v != 1 {
		t.Fatalf("kill switch gauge %v", v)
	}
	if v := testutil.ToFloat64(m.OrdersCancelled); v != 4 {
		t.Fatalf("cancels counted: %v", v)
	}
}

// A trip the guard reported is counted once: the next cycle's observer
// sees the same trip of the kill switch and does not count it again; a
// later trip (after a reset) is counted.
func TestGuardTripCountedOnce(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{health: &metrics.Health{}, obs: &observer{m: m, kill: kill}}
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if !kill.Trip(risk.TripStaleLoop, "no cycle for 16s", t0) {
		t.Fatal("the kill switch did not trip")
	}
	d.onGuard(loop.GuardReport{At: t0, Reason: risk.TripStaleLoop, Detail: "no cycle for 16s", Started: true, Tripped: true})
	d.obs.observeKill(m)
	d.obs.observeKill(m)
	if v := testutil.ToFloat64(m.KillSwitchTrips.WithLabelValues("stale_loop")); v != 1 {
		t.Fatalf("stale_loop trips counted: %v, want 1", v)
	}
	kill.Reset("test")
	kill.Halt("test", t0.Add(time.Minute))
	d.obs.observeKill(m)
	if v := testutil.ToFloat64(m.KillSwitchTrips.WithLabelValues("manual")); v != 1 {
		t.Fatalf("manual trips counted: %v, want 1", v)
	}
}

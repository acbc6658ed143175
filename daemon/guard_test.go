package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy/loop"
)

// A look that finds the loop blind fails /readyz with the guard's reason at
// once (no cycle completes to do it) and counts the trip; a look that finds
// it fine changes nothing.
func TestOnGuardFailsReadiness(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	d := &Daemon{health: &metrics.Health{}, obs: &observer{m: m}}
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
	d := &Daemon{health: &metrics.Health{}, obs: &observer{m: m, kill: kill}}
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

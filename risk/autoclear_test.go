package risk

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// Issue 20 point 7: a trip caused by the exchange being away clears by
// itself once the exchange has answered normally for AutoClearAfter since
// the trip, at most AutoClearMaxPerDay times a UTC day; other trips stay.
func TestKillSwitchAutoClear(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	type step struct {
		at      time.Duration // after t0
		healthy *bool         // OnExchange, when set
		trip    TripReason    // Trip, when set
		clear   bool          // AutoClear is called; want a clear
		capped  bool          // … want Capped
	}
	yes, no := true, false
	for _, tc := range []struct {
		name  string
		cfg   KillConfig
		steps []step
	}{
		{"clears after the healthy time", KillConfig{AutoClearAfter: 10 * time.Second}, []step{
			{at: 0, trip: TripStaleQuotes},
			{at: time.Second, healthy: &no},
			{at: 30 * time.Second, healthy: &yes},
			{at: 35 * time.Second},
			{at: 39 * time.Second},
			{at: 40 * time.Second, clear: true},
		}},
		{"healthy before the trip counts from the trip", KillConfig{AutoClearAfter: 10 * time.Second}, []step{
			{at: 0, healthy: &yes},
			{at: 20 * time.Second, trip: TripStaleLoop},
			{at: 25 * time.Second},
			{at: 30 * time.Second, clear: true},
		}},
		{"an unhealthy answer starts the time again", KillConfig{AutoClearAfter: 10 * time.Second}, []step{
			{at: 0, trip: TripConsecutiveErrors},
			{at: time.Second, healthy: &yes},
			{at: 8 * time.Second, healthy: &no},
			{at: 9 * time.Second, healthy: &yes},
			{at: 12 * time.Second},
			{at: 19 * time.Second, clear: true},
		}},
		{"losses stay latched", KillConfig{AutoClearAfter: time.Second}, []step{
			{at: 0, trip: TripDrawdown},
			{at: time.Second, healthy: &yes},
			{at: time.Hour},
		}},
		{"credentials stay latched", KillConfig{AutoClearAfter: time.Second}, []step{
			{at: 0, trip: TripAuth},
			{at: time.Second, healthy: &yes},
			{at: time.Hour},
		}},
		{"off by default", KillConfig{}, []step{
			{at: 0, trip: TripStaleQuotes},
			{at: time.Second, healthy: &yes},
			{at: time.Hour},
		}},
		{"capped per day", KillConfig{AutoClearAfter: time.Second, AutoClearMaxPerDay: 2}, []step{
			{at: 0, healthy: &yes},
			{at: time.Minute, trip: TripStaleQuotes},
			{at: 2 * time.Minute, clear: true},
			{at: 3 * time.Minute, trip: TripStaleQuotes},
			{at: 4 * time.Minute, clear: true},
			{at: 5 * time.Minute, trip: TripStaleQuotes},
			{at: 6 * time.Minute, capped: true},
			{at: 7 * time.Minute},             // reported once
			{at: 21 * time.Hour, clear: true}, // the next UTC day
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := NewKillSwitch(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			clears := 0
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				if s.healthy != nil {
					k.OnExchange(*s.healthy, now)
				}
				if s.trip != 0 {
					k.Trip(s.trip, "test", now)
					continue
				}
				was, _ := k.Tripped()
				r := k.AutoClear(now)
				tripped, _ := k.Tripped()
				if cleared := r.Cleared.Reason != 0; cleared != s.clear || r.Capped != s.capped || tripped != (was && !s.clear) {
					t.Fatalf("step %d (%s): cleared %v capped %v tripped %v; want cleared %v capped %v", i, s.at, cleared, r.Capped, tripped, s.clear, s.capped)
				}
				if s.clear {
					clears++
				}
			}
			if k.AutoClears() != clears {
				t.Fatalf("AutoClears %d, want %d", k.AutoClears(), clears)
			}
		})
	}
}

// An automatic clear keeps the loss baselines (no loss was acknowledged).
func TestKillSwitchAutoClearKeepsLossBaselines(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	k, err := NewKillSwitch(KillConfig{AutoClearAfter: time.Second, MaxDrawdown: decimal.NewFromInt(10)})
	if err != nil {
		t.Fatal(err)
	}
	k.OnPnL(decimal.NewFromInt(5), t0)
	k.OnPnL(decimal.NewFromInt(-3), t0)
	k.Trip(TripStaleQuotes, "test", t0)
	k.OnExchange(true, t0)
	if r := k.AutoClear(t0.Add(time.Second)); r.Cleared.Reason != TripStaleQuotes {
		t.Fatalf("not cleared: %+v", r)
	}
	if got := k.Losses().Drawdown; !got.Equal(decimal.NewFromInt(8)) {
		t.Fatalf("drawdown after the clear %s, want 8 (the high-water mark kept)", got)
	}
	if _, err := NewKillSwitch(KillConfig{AutoClearAfter: -time.Second}); err == nil {
		t.Fatal("negative AutoClearAfter accepted")
	}
}

// A run of order errors clears by itself only when the errors were the
// exchange's absence (OnOrderFailure with away), not refusals.
func TestKillSwitchAutoClearErrorTrips(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		fail  func(k *KillSwitch, now time.Time)
		clear bool
	}{
		{"connection errors", func(k *KillSwitch, now time.Time) { k.OnOrderFailure(true, now) }, true},
		{"refusals", func(k *KillSwitch, now time.Time) { k.OnOrderResult(false, now) }, false},
		{"refusals then connection errors", func(k *KillSwitch, now time.Time) {
			if now.Sub(t0) < 2*time.Second {
				k.OnOrderResult(false, now)
			} else {
				k.OnOrderFailure(true, now)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := NewKillSwitch(KillConfig{MaxConsecutiveErrors: 3, AutoClearAfter: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				tc.fail(k, t0.Add(time.Duration(i)*time.Second))
			}
			if tripped, trip := k.Tripped(); !tripped || trip.Reason != TripConsecutiveErrors {
				t.Fatalf("not tripped for errors: %v %+v", tripped, trip)
			}
			k.OnExchange(true, t0.Add(3*time.Second))
			r := k.AutoClear(t0.Add(time.Minute))
			if cleared := r.Cleared.Reason != 0; cleared != tc.clear {
				t.Fatalf("cleared %v, want %v", cleared, tc.clear)
			}
		})
	}
}

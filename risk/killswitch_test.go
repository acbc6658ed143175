package risk

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func newKS(t *testing.T, c KillConfig) *KillSwitch {
	t.Helper()
	k, err := NewKillSwitch(c)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func wantTrip(t *testing.T, k *KillSwitch, r TripReason, at time.Time) {
	t.Helper()
	tripped, tr := k.Tripped()
	if r == 0 {
		if tripped {
			t.Fatalf("tripped: %+v", tr)
		}
		if k.Err() != nil {
			t.Fatal("Err non-nil while untripped")
		}
		return
	}
	if !tripped || tr.Reason != r || !tr.At.Equal(at) || tr.Detail == "" {
		t.Fatalf("trip = %v %+v, want %s at %s", tripped, tr, r, at)
	}
	err := k.Err()
	var te *TripError
	if !errors.Is(err, ErrTripped) || !errors.As(err, &te) || te.Trip.Reason != r || !strings.Contains(err.Error(), r.String()) {
		t.Fatalf("Err = %v", err)
	}
}

func TestKillSwitchPnL(t *testing.T) {
	sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	type step struct {
		pnl  string
		at   time.Time
		trip TripReason
	}
	cases := []struct {
		name  string
		cfg   KillConfig
		steps []step
	}{
		{"session loss", KillConfig{MaxSessionLoss: d("100")}, []step{
			{"-50", sec(1), 0}, {"20", sec(2), 0}, {"-99.99", sec(3), 0}, {"-100", sec(4), TripSessionLoss},
		}},
		{"drawdown from peak", KillConfig{MaxDrawdown: d("30")}, []step{
			{"50", sec(1), 0}, {"21", sec(2), 0}, {"20", sec(3), TripDrawdown},
		}},
		// Day 1 ends at +40; on day 2 the loss counts from +40.
		{"daily loss", KillConfig{MaxDailyLoss: d("50")}, []step{
			{"-45", sec(1), 0}, {"40", sec(2), 0},
			{"-5", t0.Add(24 * time.Hour), 0}, {"-10", t0.Add(25 * time.Hour), TripDailyLoss},
		}},
		{"latched, first reason kept", KillConfig{MaxSessionLoss: d("10"), MaxDrawdown: d("5")}, []step{
			{"-6", sec(1), TripDrawdown}, {"-20", sec(2), TripDrawdown}, {"100", sec(3), TripDrawdown},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := newKS(t, c.cfg)
			var first time.Time
			for _, s := range c.steps {
				k.OnPnL(d(s.pnl), s.at)
				if s.trip != 0 && first.IsZero() {
					first = s.at
				}
				wantTrip(t, k, s.trip, first)
			}
		})
	}
}

func TestKillSwitchErrors(t *testing.T) {
	k := newKS(t, KillConfig{MaxConsecutiveErrors: 3})
	k.OnOrderResult(false, t0)
	k.OnOrderResult(false, t0)
	k.OnOrderResult(true, t0)
	k.OnOrderResult(false, t0)
	k.OnOrderResult(false, t0)
	wantTrip(t, k, 0, t0)
	k.OnOrderResult(false, t0.Add(time.Second))
	wantTrip(t, k, TripConsecutiveErrors, t0.Add(time.Second))
}

func TestKillSwitchErrorRate(t *testing.T) {
	cfg := KillConfig{MaxErrorRate: 0.5, ErrorWindow: 10 * time.Second, MinWindowResults: 4}
	k := newKS(t, cfg)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	// Errors at 0,1,2 then successes: at 3 the window holds 3 errors of 4 (0.75) → trips.
	for i, ok := range []bool{false, false, false} {
		k.OnOrderResult(ok, at(i))
	}
	wantTrip(t, k, 0, t0) // below MinWindowResults
	k.OnOrderResult(true, at(3))
	wantTrip(t, k, TripErrorRate, at(3))

	// Old errors leave the window: errors at 0..2, then successes from 11 on.
	k = newKS(t, cfg)
	for i := range 3 {
		k.OnOrderResult(false, at(i))
	}
	for i := 11; i < 15; i++ {
		k.OnOrderResult(true, at(i))
	}
	wantTrip(t, k, 0, t0)
	// Two fresh errors in a window of eight results stay below the rate.
	k.OnOrderResult(false, at(15))
	k.OnOrderResult(false, at(16))
	k.OnOrderResult(true, at(17))
	k.OnOrderResult(true, at(18)) // window (8,18]: 11..18 = 8 results, 2 errors
	wantTrip(t, k, 0, t0)
}

func TestKillSwitchErrorRateRingFull(t *testing.T) {
	k := newKS(t, KillConfig{MaxErrorRate: 0.9, ErrorWindow: time.Hour})
	for i := range 3 * windowCap {
		k.OnOrderResult(i%2 == 0, t0.Add(time.Duration(i)*time.Millisecond))
	}
	wantTrip(t, k, 0, t0)
	if k.n != windowCap || k.errs != windowCap/2 {
		t.Fatalf("ring n=%d errs=%d", k.n, k.errs)
	}
}

func TestKillSwitchBookAndSkew(t *testing.T) {
	k := newKS(t, KillConfig{MaxBookAge: 5 * time.Second, MaxClockSkew: 2 * time.Second})
	k.OnBookAge("0xabc", 5*time.Second, t0)
	k.OnClockSkew(-2*time.Second, t0)
	wantTrip(t, k, 0, t0)
	k.OnClockSkew(-2*time.Second-1, t0.Add(time.Second))
	wantTrip(t, k, TripClockSkew, t0.Add(time.Second))

	if _, tr := k.Tripped(); tr.Detail != "clock skew -2s (max 2s)" {
		t.Fatalf("detail %q: want the skew rounded to the millisecond", tr.Detail)
	}

	k = newKS(t, KillConfig{MaxBookAge: 5 * time.Second})
	k.OnBookAge("0xabc", 6177183875*time.Nanosecond, t0)
	wantTrip(t, k, TripStaleBook, t0)
	if _, tr := k.Tripped(); tr.Detail != "book of 0xabc is 6.177s old (max 5s)" {
		t.Fatalf("detail %q: want the market and the age rounded to the millisecond", tr.Detail)
	}
}

func TestKillSwitchLosses(t *testing.T) {
	k := newKS(t, KillConfig{MaxDrawdown: d("1000")})
	want := func(session, daily, drawdown string) {
		t.Helper()
		l := k.Losses()
		if !l.Session.Equal(d(session)) || !l.Daily.Equal(d(daily)) || !l.Drawdown.Equal(d(drawdown)) {
			t.Fatalf("losses = session %s daily %s drawdown %s, want %s %s %s", l.Session, l.Daily, l.Drawdown, session, daily, drawdown)
		}
	}
	want("0", "0", "0")
	k.OnPnL(d("50"), t0)
	want("0", "0", "0") // above every baseline
	k.OnPnL(d("-20.5"), t0.Add(time.Second))
	want("20.5", "20.5", "70.5")
	k.OnPnL(d("-10"), t0.Add(24*time.Hour)) // a new UTC day starts from the last PnL, -20.5
	want("10", "0", "60")
	k.Reset("alice") // every baseline moves to -10
	want("0", "0", "0")
	k.OnPnL(d("-15"), t0.Add(25*time.Hour))
	want("5", "5", "5")
}

// TestKillSwitchCancelThrottle: a throttle on cancels shorter than the
// limit is no trip; one of the limit or longer is, with a reason of its own;
// zero turns the trigger off.
func TestKillSwitchCancelThrottle(t *testing.T) {
	k := newKS(t, KillConfig{MaxCancelThrottle: 30 * time.Second})
	k.OnCancelThrottled(29*time.Second, t0)
	wantTrip(t, k, 0, t0)
	k.OnCancelThrottled(24*time.Hour, t0.Add(time.Second))
	wantTrip(t, k, TripCancelThrottled, t0.Add(time.Second))
	if _, tr := k.Tripped(); !strings.Contains(tr.Detail, "24h0m0s") || tr.Reason.String() != "cancel_throttled" {
		t.Fatalf("trip %+v: want the wait asked and reason cancel_throttled", tr)
	}
	k = newKS(t, KillConfig{})
	k.OnCancelThrottled(24*time.Hour, t0)
	wantTrip(t, k, 0, t0)
}

func TestKillSwitchResetAndHalt(t *testing.T) {
	k := newKS(t, KillConfig{MaxSessionLoss: d("100"), MaxConsecutiveErrors: 2})
	k.OnPnL(d("-150"), t0)
	wantTrip(t, k, TripSessionLoss, t0)
	cleared := k.Reset("alice")
	if cleared.Reason != TripSessionLoss {
		t.Fatalf("Reset returned %+v", cleared)
	}
	if by, tr := k.LastReset(); by != "alice" || tr.Reason != TripSessionLoss {
		t.Fatalf("LastReset = %q %+v", by, tr)
	}
	wantTrip(t, k, 0, t0)
	// The loss counts from the reset: −150 → −240 is a 90 loss.
	k.OnPnL(d("-240"), t0.Add(time.Second))
	wantTrip(t, k, 0, t0)
	k.OnPnL(d("-250"), t0.Add(2*time.Second))
	wantTrip(t, k, TripSessionLoss, t0.Add(2*time.Second))
	k.Reset("bob")

	k.OnOrderResult(false, t0)
	k.Reset("carol") // clears the consecutive count
	k.OnOrderResult(false, t0)
	wantTrip(t, k, 0, t0)

	k.Halt("operator pressed stop", t0)
	wantTrip(t, k, TripManual, t0)
	if z := (&KillSwitch{}).Reset("x"); z.Reason != 0 {
		t.Fatalf("untripped Reset returned %+v", z)
	}
}

func TestKillConfigValidate(t *testing.T) {
	cases := []struct {
		c     KillConfig
		field string
	}{
		{KillConfig{MaxSessionLoss: d("-1")}, "MaxSessionLoss"},
		{KillConfig{MaxDrawdown: d("0.0000001")}, "MaxDrawdown"},
		{KillConfig{MaxConsecutiveErrors: -1}, "MaxConsecutiveErrors"},
		{KillConfig{MaxErrorRate: 1.5, ErrorWindow: time.Second}, "MaxErrorRate"},
		{KillConfig{MaxErrorRate: 0.5}, "ErrorWindow"},
		{KillConfig{MinWindowResults: windowCap + 1}, "MinWindowResults"},
		{KillConfig{MaxBookAge: -1}, "MaxBookAge"},
		{KillConfig{MaxClockSkew: -1}, "MaxClockSkew"},
		{KillConfig{MaxCancelThrottle: -1}, "MaxCancelThrottle"},
	}
	for _, c := range cases {
		if _, err := NewKillSwitch(c.c); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: err %v, want one naming %s", c.c, err, c.field)
		}
	}
}

func TestTripReasonStrings(t *testing.T) {
	seen := map[string]bool{}
	for r := TripReason(1); r < tripEnd; r++ {
		if s := r.String(); s == "" || seen[s] {
			t.Fatalf("%d: %q", r, s)
		} else {
			seen[s] = true
		}
	}
	if TripReason(99).String() != "trip(99)" {
		t.Fatal(TripReason(99).String())
	}
}

func TestDayNumber(t *testing.T) {
	if dayNumber(time.Unix(0, 0)) != 0 || dayNumber(time.Unix(-1, 0)) != -1 || dayNumber(time.Unix(86400, 0)) != 1 {
		t.Fatal("dayNumber")
	}
}

// Trip latches the first reason and says whether it was the one that
// tripped; a reason outside the list counts as manual.
func TestKillSwitchTrip(t *testing.T) {
	k := newKS(t, KillConfig{})
	if !k.Trip(TripStaleLoop, "no cycle for 31s", t0) {
		t.Fatal("the first Trip did not report tripping")
	}
	wantTrip(t, k, TripStaleLoop, t0)
	if _, tr := k.Tripped(); tr.Detail != "no cycle for 31s" {
		t.Fatalf("detail %q", tr.Detail)
	}
	if k.Trip(TripStaleQuotes, "later", t0.Add(time.Second)) {
		t.Fatal("a second Trip reported tripping a tripped switch")
	}
	wantTrip(t, k, TripStaleLoop, t0)
	k.Reset("op")
	if !k.Trip(TripReason(200), "?", t0) {
		t.Fatal("Trip after Reset did not trip")
	}
	wantTrip(t, k, TripManual, t0)
	if TripStaleLoop.String() != "stale_loop" || TripStaleQuotes.String() != "stale_quotes" {
		t.Fatalf("names %q %q", TripStaleLoop, TripStaleQuotes)
	}
}

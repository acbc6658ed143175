package risk

import (
	"testing"
	"time"
)

// TripAuth latches like every reason, and replaces a trip of any other
// reason: with refused credentials nothing else can be fixed first.
func TestKillSwitchTripAuth(t *testing.T) {
	tests := []struct {
		name       string
		before     TripReason // 0: not tripped before
		wantReturn bool
	}{
		{"untripped", 0, true},
		{"over stale_book", TripStaleBook, true},
		{"over consecutive_errors", TripConsecutiveErrors, true},
		{"over auth", TripAuth, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKS(t, KillConfig{})
			at := t0
			if tt.before != 0 {
				k.Trip(tt.before, "earlier", t0)
				at = t0.Add(time.Second)
			}
			if got := k.Trip(TripAuth, "HTTP 401: unauthorized: invalid api key", at); got != tt.wantReturn {
				t.Fatalf("Trip(auth) = %v, want %v", got, tt.wantReturn)
			}
			want := at
			if tt.before == TripAuth {
				want = t0 // the first auth trip is kept
			}
			wantTrip(t, k, TripAuth, want)
			// Latched: later trips of other reasons change nothing.
			if k.Trip(TripStaleLoop, "later", at.Add(time.Minute)) {
				t.Fatal("a later trip replaced auth")
			}
			k.OnOrderResult(false, at.Add(time.Minute))
			wantTrip(t, k, TripAuth, want)
			if got := k.Reset("op"); got.Reason != TripAuth {
				t.Fatalf("Reset cleared %s, want auth", got.Reason)
			}
			if tripped, _ := k.Tripped(); tripped {
				t.Fatal("still tripped after Reset")
			}
		})
	}
	if TripAuth.String() != "auth" {
		t.Fatalf("name %q, want auth", TripAuth)
	}
}

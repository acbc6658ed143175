package state

import (
	"errors"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

func TestCanTransitionTable(t *testing.T) {
	// legal[from] lists every state reachable from `from`, itself included.
	legal := map[OrderState][]OrderState{
		Intent:          {Intent, Sent, Live, PartiallyFilled, Filled, Canceled, Failed},
		Sent:            {Sent, Live, PartiallyFilled, Filled, Canceled, Failed},
		Live:            {Live, PartiallyFilled, Filled, Canceled},
		PartiallyFilled: {PartiallyFilled, Filled, Canceled},
		Filled:          {Filled},
		Canceled:        {Canceled},
		Failed:          {Failed},
	}
	for _, from := range AllStates() {
		for _, to := range AllStates() {
			want := false
			for _, s := range legal[from] {
				want = want || s == to
			}
			if got := CanTransition(from, to); got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
	named := []struct {
		from, to OrderState
		want     bool
	}{
		{Filled, Live, false},
		{Canceled, Live, false},
		{Failed, Sent, false},
		{Live, Sent, false},
		{Live, Intent, false},
		{Live, Failed, false},
		{PartiallyFilled, Live, false},
		{Sent, Intent, false},
		{Sent, Filled, true}, // "matched"
		{Intent, Failed, true},
		{"", Live, false},
		{Live, "bogus", false},
	}
	for _, c := range named {
		if got := CanTransition(c.from, c.to); got != c.want {
			t.Errorf("CanTransition(%q, %q) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}

func TestFinal(t *testing.T) {
	want := map[OrderState]bool{Intent: false, Sent: false, Live: false, PartiallyFilled: false, Filled: true, Canceled: true, Failed: true}
	for s, w := range want {
		if s.Final() != w {
			t.Errorf("%s.Final() = %v, want %v", s, s.Final(), w)
		}
		if s.Final() && len(transitions[s]) != 0 {
			t.Errorf("final state %s has transitions", s)
		}
	}
	if len(want) != len(AllStates()) {
		t.Fatalf("AllStates has %d states, table %d", len(AllStates()), len(want))
	}
}

func TestParseOrderState(t *testing.T) {
	cases := []struct {
		in   string
		want OrderState
		ok   bool
	}{
		{"live", Live, true},
		{" LIVE ", Live, true},
		{"partially_filled", PartiallyFilled, true},
		{"Intent", Intent, true},
		{"matched", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, err := ParseOrderState(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseOrderState(%q) = %q, %v; want %q ok=%v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseOrderState(%q) error %v does not wrap ErrInvalid", c.in, err)
		}
	}
}

func TestStateFromOrderStatus(t *testing.T) {
	cases := []struct {
		status, matched string
		want            OrderState
		ok              bool
	}{
		{"LIVE", "0", Live, true},
		{"LIVE", "2.5", PartiallyFilled, true},
		{"live", "0", Live, true},
		{"MATCHED", "10", Filled, true},
		{"CANCELED", "0", Canceled, true},
		{"CANCELED", "3", Canceled, true},
		{"DELAYED", "0", "", false},
		{"", "0", "", false},
	}
	for _, c := range cases {
		got, err := StateFromOrderStatus(c.status, d(c.matched))
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("StateFromOrderStatus(%q, %s) = %q, %v; want %q ok=%v", c.status, c.matched, got, err, c.want, c.ok)
		}
	}
}

func TestStateFromPlacement(t *testing.T) {
	cases := []struct {
		res  exchange.PlacementResult
		ot   exchange.OrderType
		want OrderState
	}{
		{exchange.PlacementResult{Success: true, Status: "live"}, exchange.GTC, Live},
		{exchange.PlacementResult{Success: true, Status: "matched"}, exchange.FOK, Filled},
		{exchange.PlacementResult{Success: true, Status: "matched"}, exchange.GTC, Sent},
		{exchange.PlacementResult{Success: true, Status: "matched"}, exchange.FAK, Sent},
		{exchange.PlacementResult{Success: true, Status: "delayed"}, exchange.GTC, Sent},
		{exchange.PlacementResult{Success: true, Status: "unmatched"}, exchange.GTC, Sent},
		{exchange.PlacementResult{Success: true, Status: "something-new"}, exchange.GTC, Sent},
		{exchange.PlacementResult{Success: false, ErrorMsg: "not enough balance"}, exchange.GTC, Failed},
		{exchange.PlacementResult{Success: false, Status: "live"}, exchange.GTC, Failed},
	}
	for _, c := range cases {
		if got := StateFromPlacement(c.res, c.ot); got != c.want {
			t.Errorf("StateFromPlacement(%+v, %s) = %s, want %s", c.res, c.ot, got, c.want)
		}
	}
}

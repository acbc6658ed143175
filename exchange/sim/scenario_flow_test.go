package sim

import (
	"strings"
	"testing"
	"time"
)

// meanLogit runs a manual exchange with the flow for d and returns the mean
// logit of its open markets' fair values.
func meanLogit(t *testing.T, flow FlowConfig, d time.Duration) float64 {
	t.Helper()
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	ex, err := New(Config{Seed: 9, Markets: 6, Manual: true, Start: start, NoRateLimits: true, Flow: flow})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	before := logits(ex)
	if err := ex.Advance(d); err != nil {
		t.Fatal(err)
	}
	after := logits(ex)
	var sum float64
	for i := range after {
		sum += after[i] - before[i]
	}
	return sum / float64(len(after))
}

func logits(ex *Exchange) []float64 {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	var out []float64
	for _, s := range ex.markets {
		if !s.closed {
			out = append(out, s.logit)
		}
	}
	return out
}

func TestFlowDrift(t *testing.T) {
	// No volatility and no jumps: the fair value moves by the drift alone.
	flat := FlowConfig{Volatility: 1e-12, JumpRate: -1, TakerRate: -1}
	if m := meanLogit(t, flat, time.Hour); m > 1e-6 || m < -1e-6 {
		t.Fatalf("without drift the logit moved by %v", m)
	}
	up := flat
	up.Drift = 0.8
	if m := meanLogit(t, up, 30*time.Minute); m < 0.39 || m > 0.41 {
		t.Fatalf("drift 0.8/h for 30m moved the logit by %v, want 0.4", m)
	}
	down := flat
	down.Drift = -0.8
	if m := meanLogit(t, down, 30*time.Minute); m > -0.39 || m < -0.41 {
		t.Fatalf("drift -0.8/h for 30m moved the logit by %v, want -0.4", m)
	}
}

func TestFlowNoJumps(t *testing.T) {
	// A huge jump rate moves the logits; a negative one means none.
	jumpy := FlowConfig{Volatility: 1e-12, JumpRate: 1000, JumpSize: 1, TakerRate: -1}
	if m := meanLogit(t, jumpy, time.Minute); m == 0 {
		t.Fatal("1000 jumps an hour did not move any fair value in a minute")
	}
	none := jumpy
	none.JumpRate = -1
	if m := meanLogit(t, none, time.Minute); m > 1e-6 || m < -1e-6 {
		t.Fatalf("JumpRate -1 still jumped: %v", m)
	}
}

func TestFlowDriftValidated(t *testing.T) {
	_, err := New(Config{Manual: true, Flow: FlowConfig{Drift: 1000}})
	if err == nil || !strings.Contains(err.Error(), "drift") {
		t.Fatalf("drift 1000: %v", err)
	}
}

func TestResolution(t *testing.T) {
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	ex, err := New(Config{Seed: 3, Markets: 4, Manual: true, Start: start, NoRateLimits: true, Flow: FlowConfig{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	var open string
	for _, m := range ex.Catalog().Markets {
		if !m.Closed {
			open = m.ConditionID
			break
		}
	}
	if w, ok := ex.Resolution(open); ok || w != -1 {
		t.Fatalf("open market: resolution %d, %v", w, ok)
	}
	if err := ex.Resolve(open, 1); err != nil {
		t.Fatal(err)
	}
	if w, ok := ex.Resolution(strings.ToUpper(open)); !ok || w != 1 {
		t.Fatalf("resolved market: resolution %d, %v; want 1, true", w, ok)
	}
	if _, ok := ex.Resolution("0xnone"); ok {
		t.Fatal("unknown market resolved")
	}
}

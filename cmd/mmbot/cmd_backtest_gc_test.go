package main

import (
	"runtime/debug"
	"testing"
)

func TestBacktestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, gcMaxPercent}, {1 << 20, gcMaxPercent}, {8 << 20, 800}, {32 << 20, 200}, {64 << 20, 100}, {1 << 30, 100}} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// A backtest raises the collector's target and puts it back; GOGC in the
// environment wins.
func TestBacktestGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := tuneBacktestGC(func(string) string { return "" })
	if got := debug.SetGCPercent(gcMaxPercent); got < 100 || got > gcMaxPercent || got == 100 && gcPercentFor(0) != 100 {
		t.Errorf("GOGC %d during the backtest", got)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after, want 100", got)
	}
	restore = tuneBacktestGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set in the environment: the backtest changed it to %d", got)
	}
	restore()
}

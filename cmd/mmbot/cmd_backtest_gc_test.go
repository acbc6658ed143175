package main

import (
	"runtime/debug"
	"testing"
)

// A backtest raises the collector's target and puts it back; GOGC in the
// environment wins.
func TestBacktestGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := tuneBacktestGC(func(string) string { return "" })
	if got := debug.SetGCPercent(backtestGCPercent); got != backtestGCPercent {
		t.Errorf("GOGC %d during the backtest, want %d", got, backtestGCPercent)
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

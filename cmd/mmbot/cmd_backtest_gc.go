package main

import (
	"runtime/debug"
)

// backtestGCPercent is the garbage collector's target during a backtest
// (GOGC): a replay keeps a live heap of a few MiB while decoding a
// recording allocates about 2 KB per book event (the levels, as decimals
// and in Fixed units), so at Go's default of 100 the collector would run
// every few thousand events and take a large share of both cores
// (docs/backtesting.md, "Performance"). The heap stays flat in the
// recording's length: at most this many percent above the live heap.
const backtestGCPercent = 400

// tuneBacktestGC raises the collector's target for a backtest unless the
// GOGC variable sets one, and returns what restores the previous target.
func tuneBacktestGC(getenv func(string) string) (restore func()) {
	if getenv == nil || getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(backtestGCPercent)
	return func() { debug.SetGCPercent(old) }
}

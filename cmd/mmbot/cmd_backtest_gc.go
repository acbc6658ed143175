package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A backtest's garbage collection. A replay keeps a live heap of a few MiB
// (plus its results, a record per fill) while decoding a recording
// allocates about 2 KB per book event (the levels, as decimals and in
// Fixed units). At Go's default GOGC=100 the collector would run every
// few thousand events and take a large share of the cores
// (docs/backtesting.md, "Performance"); a fixed higher GOGC would multiply
// the growing results too. So during a backtest the collector runs when
// the heap has grown by the live heap or by gcHeadroom, whichever is more:
// GOGC is set from the live heap, between 100 and gcMaxPercent, a few
// times a second. The heap stays within about twice the live heap plus
// gcHeadroom, flat in the recording's length but for the results.
const (
	gcHeadroom   = 64 << 20
	gcMaxPercent = 2000
	gcEvery      = 100 * time.Millisecond
)

// gcPercentFor is the GOGC that leaves gcHeadroom above a live heap of
// live bytes (at least 100, at most gcMaxPercent).
func gcPercentFor(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(min(max(gcHeadroom*100/live, 100), gcMaxPercent))
}

// tuneBacktestGC keeps the collector's target as above until restore is
// called, unless the GOGC variable sets one; restore puts back the
// previous target.
func tuneBacktestGC(getenv func(string) string) (restore func()) {
	if getenv == nil || getenv("GOGC") != "" {
		return func() {}
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	cur := gcPercentFor(0)
	old := debug.SetGCPercent(cur)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(gcEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				continue
			}
			if want := gcPercentFor(sample[0].Value.Uint64()); want < cur*7/8 || want > cur*9/8 {
				debug.SetGCPercent(want)
				cur = want
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		debug.SetGCPercent(old)
	}
}

package assemble

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/strategy/loop"
)

// The daemon's loop makes one cycle's independent requests concurrently,
// and a guard watches it from its own goroutine (docs/daemon.md).
const (
	// loopConcurrency is how many of one cycle's requests may be in flight
	// at once against the live exchange (the client's limiter still admits
	// each within the rate budget). A dry run keeps one at a time, so the
	// paper venue's fill model sees its reads in the order a backtest does.
	loopConcurrency = 8
	// minRequestTimeout is the least time a request of a cycle gets.
	minRequestTimeout = time.Second
	// guardRequestTimeout bounds each of the guard's cancels.
	guardRequestTimeout = 2 * time.Second
)

// RequestTimeout is the deadline of each request of a cycle: two cycles,
// at least minRequestTimeout, at most exchange.request_timeout (which bounds
// every HTTP request anyway).
func RequestTimeout(cfg *configs.Config) time.Duration {
	return min(max(2*cfg.Strategy.Cycle.Std(), minRequestTimeout), cfg.Exchange.RequestTimeout.Std())
}

// DaemonLoop sets what only the daemon's loop does: concurrent requests
// (not in a dry run) with a per-request deadline.
func DaemonLoop(lc *loop.Config, cfg *configs.Config, dryRun bool) {
	lc.Concurrency = loopConcurrency
	if dryRun {
		lc.Concurrency = 1
	}
	lc.RequestTimeout = RequestTimeout(cfg)
}

// GuardConfig maps [strategy.guard] onto the loop's guard. The guard needs
// room for a cycle to complete: max_cycle_gap must be at least two cycles
// (a rule of mmbot run, not of the configuration: backtests run no guard).
func GuardConfig(cfg *configs.Config) (loop.GuardConfig, error) {
	g := &cfg.Strategy.Guard
	if gap, cycle := g.MaxCycleGap.Std(), cfg.Strategy.Cycle.Std(); gap < 2*cycle {
		return loop.GuardConfig{}, fmt.Errorf("configuration: strategy.guard.max_cycle_gap = %s: must be >= 2 × strategy.cycle (%s) to run the daemon", gap, 2*cycle)
	}
	return loop.GuardConfig{Period: g.Period.Std(), MaxCycleGap: g.MaxCycleGap.Std(),
		RequestTimeout: min(guardRequestTimeout, cfg.Exchange.RequestTimeout.Std()), Concurrency: loopConcurrency}, nil
}

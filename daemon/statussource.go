package daemon

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy/loop"
)

// statusSource gathers the daemon's status document (statusdoc.go) for
// GET /status and for the live table of `mmbot run`. The HTTP server asks
// for it from its own goroutines, from before the loop exists until after
// it stopped, so the parts that appear later are atomic pointers.
type statusSource struct {
	started time.Time
	version string
	dryRun  bool
	health  *metrics.Health
	obs     *observer
	buckets func(time.Time) []exchange.BucketSnapshot
	rates   *rateMeter

	loop atomic.Pointer[loop.Loop]
	kill atomic.Pointer[risk.KillSwitch]

	mu    sync.Mutex
	limit decimal.Decimal // risk.max_collateral_at_risk in force (SIGHUP may change it)
}

// newStatusSource starts the rate meter at now with the client's counts.
func newStatusSource(now time.Time, version string, dryRun bool, health *metrics.Health, obs *observer,
	buckets func(time.Time) []exchange.BucketSnapshot, limit decimal.Decimal) *statusSource {
	snap := buckets(now)
	keep := time.Duration(0)
	for _, b := range snap {
		switch b.Name {
		case bucketPostBurst, bucketPostSustained, bucketDeleteBurst, bucketDeleteSustained:
			keep = max(keep, b.Cap.Window)
		}
	}
	return &statusSource{started: now, version: version, dryRun: dryRun, health: health, obs: obs, buckets: buckets,
		rates: newRateMeter(sampleOf(now, snap), keep+time.Minute), limit: limit}
}

// setLimit records the collateral limit in force after a reload.
func (s *statusSource) setLimit(l decimal.Decimal) {
	s.mu.Lock()
	s.limit = l
	s.mu.Unlock()
}

// collateralLimit returns the collateral limit in force (zero: none).
func (s *statusSource) collateralLimit() decimal.Decimal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit
}

// sample records the order and cancel counts after a cycle.
func (s *statusSource) sample(now time.Time) { s.rates.add(sampleOf(now, s.buckets(now))) }

// doc builds the document at now.
func (s *statusSource) doc(now time.Time) status.Status {
	in := statusInput{Now: now, Started: s.started, Version: s.version, PID: os.Getpid(), DryRun: s.dryRun,
		Buckets: s.buckets(now), Base: func(w time.Duration) rateSample { return s.rates.base(now, w) },
		HTTP429: s.obs.got429.Load(), Retries: s.obs.retries.Load()}
	in.Ready, in.NotReady = s.health.Ready()
	if in.Ready {
		in.NotReady = ""
	}
	if l := s.loop.Load(); l != nil {
		st := l.Status()
		in.Loop = &st
	}
	if k := s.kill.Load(); k != nil {
		in.Kill.Tripped, in.Kill.Trip = k.Tripped()
		in.Kill.ResetBy, in.Kill.Cleared = k.LastReset()
	}
	s.mu.Lock()
	in.CollateralLimit = s.limit
	s.mu.Unlock()
	return buildStatusDoc(&in)
}

// route is GET /status on the metrics listener.
func (s *statusSource) route() metrics.Route {
	return metrics.Route{Path: "/status", Handler: metrics.JSON(func(context.Context) (any, error) {
		return s.doc(time.Now()), nil
	})}
}

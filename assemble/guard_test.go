package assemble

import (
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/strategy/loop"
)

// A request of a cycle gets two cycles, at least 1 s, at most
// exchange.request_timeout.
func TestRequestTimeout(t *testing.T) {
	for _, c := range []struct{ cycle, http, want time.Duration }{
		{200 * time.Millisecond, 10 * time.Second, time.Second},
		{time.Second, 10 * time.Second, 2 * time.Second},
		{10 * time.Second, 5 * time.Second, 5 * time.Second},
	} {
		cfg := configs.Defaults()
		cfg.Strategy.Cycle, cfg.Exchange.RequestTimeout = configs.Duration(c.cycle), configs.Duration(c.http)
		if got := RequestTimeout(&cfg); got != c.want {
			t.Errorf("cycle %s, request_timeout %s: %s, want %s", c.cycle, c.http, got, c.want)
		}
		var lc loop.Config
		DaemonLoop(&lc, &cfg, false)
		if lc.Concurrency != loopConcurrency || lc.RequestTimeout != c.want {
			t.Errorf("live loop: %d concurrent, %s", lc.Concurrency, lc.RequestTimeout)
		}
		DaemonLoop(&lc, &cfg, true)
		if lc.Concurrency != 1 {
			t.Errorf("dry run: %d concurrent, want 1", lc.Concurrency)
		}
	}
}

func TestGuardConfigNeedsTwoCycles(t *testing.T) {
	cfg := configs.Defaults()
	gc, err := GuardConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if gc.Period != time.Second || gc.MaxCycleGap != 15*time.Second || gc.RequestTimeout != guardRequestTimeout {
		t.Fatalf("defaults: %+v", gc)
	}
	cfg.Strategy.Cycle = configs.Duration(10 * time.Second)
	if _, err := GuardConfig(&cfg); err == nil || !strings.Contains(err.Error(), "strategy.guard.max_cycle_gap") {
		t.Fatalf("a gap under two cycles: %v", err)
	}
}

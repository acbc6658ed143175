package daemon

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/risk"
)

// TestRetryAfterCappedLoggedOnceAndTrips: the daemon's client, built from
// the configuration, cuts a Retry-After of a day to exchange.max_retry_after
// (the cancel endpoint is usable again after it); every cut is counted, one
// line is logged per endpoint, and a 429 on DELETE /order asking for more
// than risk.max_cancel_throttle trips the kill switch with its own reason.
// A 429 on another endpoint does not.
func TestRetryAfterCappedLoggedOnceAndTrips(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "86400")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":"slow down"}`))
	}))
	defer srv.Close()

	cfg := configs.Defaults()
	cfg.Exchange.MaxRetryAfter = configs.Duration(2 * time.Second)
	cfg.Exchange.Retry.MaxAttempts = 1
	var buf bytes.Buffer
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(assemble.KillConfig(&cfg.Risk))
	if err != nil {
		t.Fatal(err)
	}
	o := &observer{log: zerolog.New(&buf), m: m}
	o.cancelKill.Store(kill)
	c, err := assemble.NewClient(&cfg, "dev", exchange.Endpoints{CLOB: srv.URL + "/clob"}, fakeAuthenticator{}, o.clientObserver())
	if err != nil {
		t.Fatal(err)
	}

	// A 429 on a read: capped, logged, no trip.
	if _, err := c.Markets(context.Background(), ""); !errors.Is(err, exchange.ErrRateLimited) {
		t.Fatalf("markets: %v", err)
	}
	if tripped, tr := kill.Tripped(); tripped {
		t.Fatalf("a 429 on a read tripped the kill switch: %+v", tr)
	}
	if _, err := c.CancelOrder(context.Background(), "0x1"); !errors.Is(err, exchange.ErrRateLimited) {
		t.Fatalf("cancel: %v", err)
	}
	if tripped, tr := kill.Tripped(); !tripped || tr.Reason != risk.TripCancelThrottled {
		t.Fatalf("kill switch = %v %+v, want cancel_throttled", tripped, tr)
	}
	now := time.Now()
	if b := c.Budget(now.Add(3 * time.Second)); b.Cancels == 0 {
		t.Errorf("cancels blocked past exchange.max_retry_after (2s) by Retry-After: 86400: %+v", b)
	}
	// The same endpoint capped again: counted, not logged again.
	o.clientObserver().RetryAfterCapped(cancelEndpoint, 24*time.Hour, 2*time.Second)

	if n := strings.Count(buf.String(), "longer than exchange.max_retry_after"); n != 2 {
		t.Errorf("%d log lines, want 2 (one per endpoint):\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), `"asked":"24h0m0s"`) || !strings.Contains(buf.String(), `"waiting":"2s"`) {
		t.Errorf("log does not say what was asked and what is waited: %s", buf.String())
	}
	if v := testutil.ToFloat64(m.RetryAfterCapped.WithLabelValues(cancelEndpoint)); v != 2 {
		t.Errorf("capped counter for %s = %v, want 2", cancelEndpoint, v)
	}
	if v := testutil.ToFloat64(m.RetryAfterCapped.WithLabelValues("clob GET /markets")); v != 1 {
		t.Errorf("capped counter for GET /markets = %v, want 1", v)
	}
	if v := testutil.ToFloat64(m.RateLimited); v != 2 || hits.Load() != 2 {
		t.Errorf("429s counted %v, server hits %d; want 2 and 2", v, hits.Load())
	}
}

// fakeAuthenticator signs nothing: the test server does not check.
type fakeAuthenticator struct{}

func (fakeAuthenticator) AuthHeaders(string, string, []byte) (http.Header, error) {
	return http.Header{}, nil
}

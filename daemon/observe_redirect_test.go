package daemon

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/metrics"
)

// TestRedirectRefusedLoggedOnce: every refused redirect is counted, and one
// line is logged per endpoint and target host.
func TestRedirectRefusedLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	o := &observer{log: zerolog.New(&buf), m: m}
	refuse := o.clientObserver().RedirectRefused
	for i := 0; i < 3; i++ {
		refuse(&exchange.RedirectError{Endpoint: "clob POST /orders", Status: 307, From: "http://a/clob/orders", To: "http://evil:1/x?n=" + string(rune('0'+i)), Reason: "r"})
	}
	refuse(&exchange.RedirectError{Endpoint: "clob DELETE /order", Status: 307, To: "http://evil:1/order", Reason: "r"})
	if n := strings.Count(buf.String(), "not followed"); n != 2 {
		t.Errorf("%d log lines, want 2:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), `"to":"http://evil:1"`) {
		t.Errorf("log does not name the host: %s", buf.String())
	}
	if v := testutil.ToFloat64(m.RedirectsRefused.WithLabelValues("clob POST /orders")); v != 3 {
		t.Errorf("counter = %v, want 3", v)
	}
}

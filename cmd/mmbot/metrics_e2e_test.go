package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mmbot/mmbot/internal/metrics"
)

// registeredNames returns the names metrics.NewRegistry describes: the
// dashboard and alert rules are checked against it (internal/metrics).
func registeredNames(t *testing.T) map[string]bool {
	t.Helper()
	reg, _, err := metrics.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	fq := regexp.MustCompile(`^Desc\{fqName: "([^"]+)"`) // Desc has no name accessor
	ch := make(chan *prometheus.Desc)
	go func() {
		reg.Describe(ch)
		close(ch)
	}()
	names := map[string]bool{}
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			names[m[1]] = true
		}
	}
	return names
}

// sample returns the value of the series of fam whose labels include want,
// and whether there is one.
func sample(fams map[string]*dto.MetricFamily, fam string, want map[string]string) (float64, bool) {
	f, ok := fams[fam]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		for k, v := range want {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// checkDaemonMetrics scrapes a running daemon's /metrics: every family it
// exposes is one that metrics.NewRegistry registers (so the names the
// monitoring test accepts are the daemon's), and the observer is wired: the
// last cycle is recent, the order bucket counts what was sent against its
// cap, the risk limits are the configuration's, and markouts are measured.
func checkDaemonMetrics(t *testing.T, p *daemonProc, maxDrawdown, maxBookAge float64) {
	t.Helper()
	l, ok := p.waitMsg(5*time.Second, "metrics, /healthz and /readyz")
	if !ok {
		t.Fatal("no metrics listen line")
	}
	code, body := httpGet(t, l.str("listen")+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	names := registeredNames(t)
	for n := range fams {
		if !names[n] {
			t.Errorf("the daemon exposes %s, which metrics.NewRegistry does not register", n)
		}
	}
	get := func(fam string, labels map[string]string) float64 {
		t.Helper()
		v, ok := sample(fams, fam, labels)
		if !ok {
			t.Errorf("no %s%v in the daemon's metrics", fam, labels)
		}
		return v
	}
	now := float64(time.Now().UnixNano()) / 1e9
	if last := get("mmbot_cycle_last_success_timestamp_seconds", nil); last < now-5 || last > now+1 {
		t.Errorf("last completed cycle at %.1f, %.1f s before the scrape", last, now-last)
	}
	post := map[string]string{"bucket": "post_order_sustained"}
	if sent, placed := get("mmbot_ratelimit_admitted_total", post), get("mmbot_orders_placed_total", nil); sent < placed || placed == 0 {
		t.Errorf("post_order_sustained let out %v order units for %v orders placed", sent, placed)
	}
	if c := get("mmbot_ratelimit_cap_per_second", post); c != 40 {
		t.Errorf("post_order_sustained cap %v/s, want 24000 per 10 min = 40/s", c)
	}
	if v := get("mmbot_risk_max_drawdown", nil); v != maxDrawdown {
		t.Errorf("mmbot_risk_max_drawdown %v, want %v", v, maxDrawdown)
	}
	if v := get("mmbot_risk_max_book_age_seconds", nil); v != maxBookAge {
		t.Errorf("mmbot_risk_max_book_age_seconds %v, want %v", v, maxBookAge)
	}
	fills := get("mmbot_fills_total", nil)
	shares := get("mmbot_markout_shares_total", map[string]string{"horizon": "10s"})
	gain := get("mmbot_markout_gain_total", map[string]string{"horizon": "10s"})
	loss := get("mmbot_markout_loss_total", map[string]string{"horizon": "10s"})
	get("mmbot_markout_shares_total", map[string]string{"horizon": "60s"})
	get("mmbot_http_auth_failures_total", map[string]string{"status": "401"})
	t.Logf("metrics: %d families; %v fills; 10s markouts over %v shares: +%.4f −%.4f", len(fams), fills, shares, gain, loss)
}

package daemon

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

var mt0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func newTestMetrics(t *testing.T) *metrics.Metrics {
	t.Helper()
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func wantValue(t *testing.T, what string, c prometheus.Collector, want float64) {
	t.Helper()
	if got := testutil.ToFloat64(c); got < want-1e-9 || got > want+1e-9 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// The client reports every answer's status; the observer counts 401 and 403.
func TestObserverCountsAuthFailures(t *testing.T) {
	statuses := []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnauthorized, http.StatusBadRequest}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s := statuses[0]
		statuses = statuses[1:]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s)
		_, _ = w.Write([]byte(`{"error":"no"}`))
	}))
	t.Cleanup(srv.Close)
	cfg := configs.Defaults()
	o := &observer{m: newTestMetrics(t)}
	c, err := assemble.NewClient(&cfg, "dev", exchange.Endpoints{CLOB: srv.URL}, nil, o.clientObserver())
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		var ae *exchange.APIError
		if _, err := c.Markets(context.Background(), ""); !errors.As(err, &ae) {
			t.Fatalf("Markets: %v, want an APIError", err)
		}
	}
	wantValue(t, "401s", o.m.AuthFailures.WithLabelValues("401"), 2)
	wantValue(t, "403s", o.m.AuthFailures.WithLabelValues("403"), 1)
	if n := testutil.CollectAndCount(o.m.AuthFailures); n != 2 {
		t.Errorf("%d auth-failure series, want 401 and 403 only", n)
	}
}

// cycleReport is a report of a cycle that ended at start+100ms.
func cycleReport(start time.Time, err error, markets []loop.MarketStatus, fills ...loop.Fill) *loop.CycleReport {
	end := start.Add(100 * time.Millisecond)
	return &loop.CycleReport{Start: start, Duration: 100 * time.Millisecond, Err: err, Fills: len(fills), Filled: fills,
		Status: &loop.Status{Time: end, Markets: markets}}
}

func TestObserverCycleAndBuckets(t *testing.T) {
	m := newTestMetrics(t)
	var admitted uint64 = 7
	o := &observer{m: m, buckets: func(time.Time) []exchange.BucketSnapshot {
		return []exchange.BucketSnapshot{{Name: "post_order_sustained", Cap: exchange.Cap{Requests: 24000, Window: 10 * time.Minute},
			Burst: 100, Tokens: 25, Admitted: admitted}}
	}}
	markets := []loop.MarketStatus{{ConditionID: "0xa", BookAge: 2 * time.Second}, {ConditionID: "0xb", BookAge: time.Hour, Stopped: "closed"}}
	o.OnCycle(cycleReport(mt0, nil, markets))
	wantValue(t, "last cycle", m.LastCycle, float64(mt0.Unix())+0.1)
	wantValue(t, "cycle errors", m.CycleErrors, 0)
	wantValue(t, "book age of 0xa", m.BookAgeSeconds.WithLabelValues("0xa"), 2)
	if n := testutil.CollectAndCount(m.BookAgeSeconds); n != 1 {
		t.Errorf("%d book-age series, want 1: a stopped market has none", n)
	}
	wantValue(t, "cap", m.RateCap.WithLabelValues("post_order_sustained"), 40)
	wantValue(t, "in use", m.TokensInUse.WithLabelValues("post_order_sustained"), 0.75)
	wantValue(t, "admitted", m.RateAdmitted.WithLabelValues("post_order_sustained"), 7)

	// A failed cycle counts as an error and leaves the last success alone.
	admitted = 12
	o.OnCycle(cycleReport(mt0.Add(time.Second), errors.New("read books: boom"), markets))
	wantValue(t, "last cycle after an error", m.LastCycle, float64(mt0.Unix())+0.1)
	wantValue(t, "cycle errors", m.CycleErrors, 1)
	wantValue(t, "admitted", m.RateAdmitted.WithLabelValues("post_order_sustained"), 12)
}

func TestObserverKillSwitch(t *testing.T) {
	m := newTestMetrics(t)
	k, err := risk.NewKillSwitch(risk.KillConfig{MaxDrawdown: decimal.NewFromInt(10)})
	if err != nil {
		t.Fatal(err)
	}
	o := &observer{m: m}
	o.watchRisk(k, &configs.Risk{MaxDrawdown: decimal.NewFromInt(10), DrawdownWindow: "session", MaxBookAge: configs.Duration(15 * time.Second)})
	wantValue(t, "max drawdown", m.MaxDrawdown, 10)
	wantValue(t, "max book age", m.MaxBookAge, 15)

	k.OnPnL(decimal.NewFromInt(5), mt0)
	k.OnPnL(decimal.NewFromInt(-3), mt0.Add(time.Second))
	o.OnCycle(cycleReport(mt0, nil, nil))
	wantValue(t, "drawdown", m.Drawdown, 8)
	wantValue(t, "trips", m.KillSwitchTrips.WithLabelValues("drawdown"), 0)

	k.OnPnL(decimal.NewFromInt(-6), mt0.Add(2*time.Second)) // 11 from the high: trips
	o.OnCycle(cycleReport(mt0.Add(2*time.Second), nil, nil))
	o.OnCycle(cycleReport(mt0.Add(3*time.Second), nil, nil)) // still the same trip
	wantValue(t, "drawdown", m.Drawdown, 11)
	wantValue(t, "trips", m.KillSwitchTrips.WithLabelValues("drawdown"), 1)

	k.Reset("test")
	o.OnCycle(cycleReport(mt0.Add(4*time.Second), nil, nil))
	wantValue(t, "drawdown after a reset", m.Drawdown, 0)
	k.Halt("operator", mt0.Add(5*time.Second))
	o.OnCycle(cycleReport(mt0.Add(5*time.Second), nil, nil))
	wantValue(t, "manual trips", m.KillSwitchTrips.WithLabelValues("manual"), 1)
	wantValue(t, "drawdown trips", m.KillSwitchTrips.WithLabelValues("drawdown"), 1)
}

// With risk.drawdown_window = "day" the drawdown is the loss since the UTC
// day's start, as the kill switch counts it.
func TestObserverDailyDrawdown(t *testing.T) {
	m := newTestMetrics(t)
	k, err := risk.NewKillSwitch(risk.KillConfig{MaxDailyLoss: decimal.NewFromInt(10)})
	if err != nil {
		t.Fatal(err)
	}
	o := &observer{m: m}
	o.watchRisk(k, &configs.Risk{MaxDrawdown: decimal.NewFromInt(10), DrawdownWindow: "day"})
	k.OnPnL(decimal.NewFromInt(5), mt0)
	k.OnPnL(decimal.NewFromInt(-3), mt0.Add(time.Second))
	o.OnCycle(cycleReport(mt0, nil, nil))
	wantValue(t, "daily drawdown", m.Drawdown, 3) // from the day's start at 0, not from the high at 5
}

func TestObserverMarkouts(t *testing.T) {
	m := newTestMetrics(t)
	o := &observer{m: m}
	o.OnCycle(cycleReport(mt0, nil, nil))
	for _, h := range []string{"1s", "10s", "60s"} { // every horizon's series exists from the first cycle
		wantValue(t, h+" shares", m.MarkoutShares.WithLabelValues(h), 0)
	}
	if n := testutil.CollectAndCount(m.MarkoutShares); n != 3 {
		t.Errorf("%d markout horizons, want 3", n)
	}

	// The loop measured: at 1 s a buy of 10 that gained 0.2 and a sale of
	// 4 that lost 0.2; at 10 s the buy again, losing 0.8.
	buy := strategy.OwnFill{Outcome: strategy.Yes, Side: exchange.Buy, Price: 0.48, Size: 10, Time: mt0}
	sell := strategy.OwnFill{Outcome: strategy.No, Side: exchange.Sell, Price: 0.55, Size: 4, Time: mt0}
	r := cycleReport(mt0.Add(10*time.Second), nil, nil)
	r.Markouts = []strategy.Markout{{Horizon: 0, Fill: buy, Value: 0.2}, {Horizon: 0, Fill: sell, Value: -0.2}, {Horizon: 1, Fill: buy, Value: -0.8}}
	o.OnCycle(r)
	wantValue(t, "1s gain", m.MarkoutGain.WithLabelValues("1s"), 0.2)
	wantValue(t, "1s loss", m.MarkoutLoss.WithLabelValues("1s"), 0.2)
	wantValue(t, "1s shares", m.MarkoutShares.WithLabelValues("1s"), 14)
	wantValue(t, "10s loss", m.MarkoutLoss.WithLabelValues("10s"), 0.8)
	wantValue(t, "10s gain", m.MarkoutGain.WithLabelValues("10s"), 0)
	wantValue(t, "10s shares", m.MarkoutShares.WithLabelValues("10s"), 10)
	wantValue(t, "60s shares", m.MarkoutShares.WithLabelValues("60s"), 0)
}

// The estimated rewards earned and each paying market's share are exported.
func TestObserverRewards(t *testing.T) {
	m := newTestMetrics(t)
	o := &observer{m: m}
	markets := []loop.MarketStatus{
		{ConditionID: "0xa", Rewards: loop.MarketRewards{Pays: true, Share: 0.25, Daily: 25, Earned: decimal.RequireFromString("0.125")}},
		{ConditionID: "0xb", Rewards: loop.MarketRewards{Pays: true, Share: 0.05, Daily: 5, Earned: decimal.RequireFromString("0.5")}},
		{ConditionID: "0xc"},
	}
	o.OnCycle(cycleReport(mt0, nil, markets))
	wantValue(t, "rewards earned", m.RewardsEarned, 0.625)
	wantValue(t, "share of 0xa", m.RewardShare.WithLabelValues("0xa"), 0.25)
	wantValue(t, "share of 0xb", m.RewardShare.WithLabelValues("0xb"), 0.05)
	if n := testutil.CollectAndCount(m.RewardShare); n != 2 {
		t.Errorf("%d reward-share series, want 2: a market that pays nothing has none", n)
	}
}

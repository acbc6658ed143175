package main

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/strategy/loop"
)

// observer turns the loop's cycle reports and the client's events into
// metrics, and counts what the summary reports.
type observer struct {
	m       *metrics.Metrics
	buckets func(time.Time) []exchange.BucketSnapshot
	got429  atomic.Int64
	retries atomic.Int64
}

func (o *observer) clientObserver() exchange.Observer {
	return exchange.Observer{
		RateLimited: func(string, time.Duration) {
			o.got429.Add(1)
			if o.m != nil {
				o.m.RateLimited.Inc()
			}
		},
		Retry: func(string, int, time.Duration, error) {
			o.retries.Add(1)
			if o.m != nil {
				o.m.Retries.Inc()
			}
		},
	}
}

func (o *observer) OnCycle(r *loop.CycleReport) {
	m := o.m
	if m == nil || r.Status == nil {
		return
	}
	m.CycleSeconds.Observe(r.Duration.Seconds())
	m.OrdersPlaced.Add(float64(r.Placed))
	m.OrdersCancelled.Add(float64(r.Cancelled))
	m.Fills.Add(float64(r.Fills))
	for _, why := range r.Rejected {
		m.OrdersRejected.WithLabelValues(why).Inc()
	}
	st := r.Status
	m.LiveOrders.Set(float64(st.LiveOrders))
	m.Markets.Set(float64(len(st.Markets)))
	m.PnL.WithLabelValues("realized").Set(st.Tally.RealizedPnL.InexactFloat64())
	m.PnL.WithLabelValues("marked").Set(st.Tally.MarkedPnL.InexactFloat64())
	if st.Tripped {
		m.KillSwitch.Set(1)
	} else {
		m.KillSwitch.Set(0)
	}
	for _, ms := range st.Markets {
		m.Position.WithLabelValues(ms.ConditionID, "yes").Set(ms.Position[0].InexactFloat64())
		m.Position.WithLabelValues(ms.ConditionID, "no").Set(ms.Position[1].InexactFloat64())
		m.BookAgeSeconds.WithLabelValues(ms.ConditionID).Set(ms.BookAge.Seconds())
	}
	if o.buckets != nil {
		for _, b := range o.buckets(st.Time) {
			inUse := 0.0
			if b.Burst > 0 {
				inUse = 1 - b.Tokens/float64(b.Burst)
			}
			m.TokensInUse.WithLabelValues(b.Name).Set(inUse)
		}
	}
}

func signed(d decimal.Decimal) string {
	s := d.StringFixed(4)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

func shortID(s string) string {
	if len(s) > 12 {
		return s[:8] + "…" + s[len(s)-4:]
	}
	return s
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

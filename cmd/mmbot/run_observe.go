package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"text/tabwriter"
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

// printStatus writes the live status table: one row per market, then the
// totals and the order rate against the POST /order sustained cap.
func printStatus(w io.Writer, st loop.Status, elapsed time.Duration, limits exchange.Limits, got429 int64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\n%s  up %s  markets %d  live orders %d\n", st.Time.Format("15:04:05"), seconds(elapsed), len(st.Markets), st.LiveOrders)
	fmt.Fprintln(tw, "MARKET\tFAIR\tOUR BID\tOUR ASK\tPOS YES\tPOS NO\tOPEN\tBOOK AGE\tNOTE")
	for _, m := range st.Markets {
		fair := "-"
		if m.HasFair {
			fair = fmt.Sprintf("%.4f", m.Fair)
		}
		note := ""
		switch {
		case m.Stopped != "":
			note = "stopped: " + m.Stopped
		case m.Stale:
			note = "stale book"
		}
		name := m.Slug
		if name == "" {
			name = shortID(m.ConditionID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", trunc(name, 28), fair, decOrDash(m.BestBid), decOrDash(m.BestAsk),
			m.Position[0].String(), m.Position[1].String(), m.Open, m.BookAge.Round(time.Millisecond), note)
	}
	t := st.Tally
	secs := max(elapsed.Seconds(), 1)
	cap := limits.PostOrderSustained
	capRate := float64(cap.Requests) / max(cap.Window.Seconds(), 1)
	fmt.Fprintf(tw, "fills %d  volume %s  pnl %s (realized %s)  orders %d (%.1f/s of %.0f/s cap)  cancels %d  rejected %d  429s %d\n",
		t.Fills, t.Volume.StringFixed(2), signed(t.MarkedPnL), signed(t.RealizedPnL), t.Placed, float64(t.Placed)/secs, capRate,
		t.Cancelled, t.Rejected+t.PlaceFailed, got429)
	if st.Tripped {
		fmt.Fprintf(tw, "KILL SWITCH TRIPPED: %s (quoting stopped; reset with SIGHUP after fixing the cause)\n", st.TripReason)
	}
	_ = tw.Flush()
}

// seconds formats a span shown to people in whole seconds without zero
// units: "12s", "1m", "1m5s", "2h", "1h0m5s" (not "1m0s" or "2h0m0s").
func seconds(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func decOrDash(d decimal.Decimal) string {
	if d.IsZero() {
		return "-"
	}
	return d.String()
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

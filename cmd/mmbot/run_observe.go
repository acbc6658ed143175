package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy/loop"
)

// cancelEndpoint is the client's name of DELETE /order (exchange.Observer).
const cancelEndpoint = "clob DELETE /order"

// observer turns the loop's cycle reports and the client's events into
// metrics, and counts what the summary reports.
type observer struct {
	log     zerolog.Logger // warnings: refused redirects, capped Retry-After
	m       *metrics.Metrics
	buckets func(time.Time) []exchange.BucketSnapshot
	got429  atomic.Int64
	retries atomic.Int64
	// redirects holds the endpoint and target host of each refused
	// redirect already logged: one line each, however often it repeats.
	redirects sync.Map
	// capped holds the endpoints whose capped Retry-After was logged.
	capped sync.Map
	// refusedTerms holds the market and reason of each market whose terms
	// were refused at selection and logged.
	refusedTerms sync.Map
	// kill, once set, hears of cancels the exchange throttles; now is its
	// clock (time.Now when nil).
	kill atomic.Pointer[risk.KillSwitch]
	now  func() time.Time
}

func (o *observer) clock() time.Time {
	if o.now != nil {
		return o.now()
	}
	return time.Now()
}

func (o *observer) clientObserver() exchange.Observer {
	return exchange.Observer{
		RateLimited: func(endpoint string, asked time.Duration) {
			o.got429.Add(1)
			if o.m != nil {
				o.m.RateLimited.Inc()
			}
			if k := o.kill.Load(); k != nil && endpoint == cancelEndpoint {
				k.OnCancelThrottled(asked, o.clock())
			}
		},
		RetryAfterCapped: o.retryAfterCapped,
		Retry: func(string, int, time.Duration, error) {
			o.retries.Add(1)
			if o.m != nil {
				o.m.Retries.Inc()
			}
		},
		RedirectRefused: o.redirectRefused,
	}
}

// retryAfterCapped counts a Retry-After cut to exchange.max_retry_after and
// logs the first one of each endpoint.
func (o *observer) retryAfterCapped(endpoint string, asked, used time.Duration) {
	if o.m != nil {
		o.m.RetryAfterCapped.WithLabelValues(endpoint).Inc()
	}
	if _, seen := o.capped.LoadOrStore(endpoint, true); !seen {
		o.log.Warn().Str("endpoint", endpoint).Str("asked", asked.String()).Str("waiting", used.String()).
			Msg("exchange asked for a Retry-After longer than exchange.max_retry_after; waiting the cap instead (logged once per endpoint; counted in mmbot_http_retry_after_capped_total)")
	}
}

// marketRefused counts a market left out of the selection for invalid
// terms and logs it once per market and reason.
func (o *observer) marketRefused(conditionID string, err error) {
	reason := "invalid"
	var ve *exchange.ValidationError
	if errors.As(err, &ve) {
		reason = ve.Reason
	}
	if o.m != nil {
		o.m.MarketDataRefused.WithLabelValues(reason).Inc()
	}
	if _, seen := o.refusedTerms.LoadOrStore(conditionID+" "+reason, true); !seen {
		o.log.Warn().Str("market", conditionID).Str("reason", reason).Err(err).
			Msg("market refused at selection: its terms are invalid; it is not quoted (the others are)")
	}
}

// redirectRefused counts a refused redirect and logs the first one of each
// endpoint and target host.
func (o *observer) redirectRefused(re *exchange.RedirectError) {
	if o.m != nil {
		o.m.RedirectsRefused.WithLabelValues(re.Endpoint).Inc()
	}
	to := re.To
	if u, err := url.Parse(re.To); err == nil {
		to = u.Scheme + "://" + u.Host
	}
	if _, seen := o.redirects.LoadOrStore(re.Endpoint+" "+to, true); !seen {
		o.log.Warn().Str("endpoint", re.Endpoint).Int("status", re.Status).Str("to", to).Str("why", re.Reason).
			Msg("exchange answered with a redirect; not followed (logged once per endpoint and host; counted in mmbot_http_redirects_refused_total)")
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
	for _, why := range r.BooksRefused {
		m.MarketDataRefused.WithLabelValues(why).Inc()
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
	fmt.Fprintf(tw, "\n%s  up %s  markets %d  live orders %d\n", st.Time.Format("15:04:05"), elapsed.Round(time.Second), len(st.Markets), st.LiveOrders)
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
		case m.Refused != "":
			note = "refused: " + trunc(m.Refused, 100)
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

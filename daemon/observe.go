package daemon

import (
	"errors"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

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

	// Read and written by OnCycle only (metrics.go).
	kill          *risk.KillSwitch // nil: no trips or drawdown to report
	dailyDrawdown bool             // risk.drawdown_window = "day"
	admitted      map[string]uint64
	autoClears    int // the loop's Tally.AutoClears already counted
	// capped holds the endpoints whose capped Retry-After was logged.
	capped sync.Map
	// refusedTerms holds the market and reason of each market whose terms
	// were refused at selection and logged.
	refusedTerms sync.Map
	// kill, once set, hears of cancels the exchange throttles; now is its
	// clock (time.Now when nil).
	cancelKill atomic.Pointer[risk.KillSwitch]
	now        func() time.Time

	// The trip counted last: OnCycle and the loop's guard (on its own
	// goroutine) both count trips, each trip once (countTrip).
	tripMu      sync.Mutex
	tripCounted bool
	lastTrip    time.Time // when the last trip counted happened

	// rewards, when set, writes the reward estimate to the journal (on
	// OnCycle's goroutine, and at shutdown).
	rewards *rewardJournal
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
			if k := o.cancelKill.Load(); k != nil && endpoint == cancelEndpoint {
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
		RequestDone:     o.requestDone,
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
	if o.rewards != nil && r.Status != nil {
		o.rewards.observe(r.Status, false)
	}
	m := o.m
	if m == nil || r.Status == nil {
		return
	}
	m.CycleSeconds.Observe(r.Duration.Seconds())
	observeCycleEnd(m, r)
	m.OrdersPlaced.Add(float64(r.Placed))
	m.OrdersCancelled.Add(float64(r.Cancelled))
	m.Fills.Add(float64(r.Fills))
	m.FillsReversed.Add(float64(len(r.Reversed)))
	for _, why := range r.Rejected {
		m.OrdersRejected.WithLabelValues(why).Inc()
	}
	for _, why := range r.BooksRefused {
		m.MarketDataRefused.WithLabelValues(why).Inc()
	}
	st := r.Status
	m.TradesPending.Set(float64(st.PendingTrades))
	if n := st.Tally.AutoClears; n > o.autoClears {
		m.KillAutoClears.Add(float64(n - o.autoClears))
		o.autoClears = n
	}
	m.LiveOrders.Set(float64(st.LiveOrders))
	m.Markets.Set(float64(len(st.Markets)))
	m.PnL.WithLabelValues("realized").Set(st.Tally.RealizedPnL.InexactFloat64())
	m.PnL.WithLabelValues("marked").Set(st.Tally.MarkedPnL.InexactFloat64())
	if st.Tripped {
		m.KillSwitch.Set(1)
	} else {
		m.KillSwitch.Set(0)
	}
	earned, _, _ := st.RewardTotals()
	m.RewardsEarned.Set(earned.InexactFloat64())
	for _, ms := range st.Markets {
		m.Position.WithLabelValues(ms.ConditionID, "yes").Set(ms.Position[0].InexactFloat64())
		m.Position.WithLabelValues(ms.ConditionID, "no").Set(ms.Position[1].InexactFloat64())
		if ms.Rewards.Pays {
			m.RewardShare.WithLabelValues(ms.ConditionID).Set(ms.Rewards.Share)
		}
	}
	observeBookAges(m, st)
	o.observeBuckets(m, st.Time)
	o.observeKill(m)
	o.observeMarkouts(m, r)
}

// LogObserver is the client observer of a command that is not the daemon
// (record, cancel-all): it logs, once each, the refused redirects and the
// Retry-After answers cut to exchange.max_retry_after, and marketRefused
// logs a market left out of the selection (assemble.SelectMarkets).
func LogObserver(log zerolog.Logger) (client exchange.Observer, marketRefused func(conditionID string, err error)) {
	o := &observer{log: log}
	return o.clientObserver(), o.marketRefused
}

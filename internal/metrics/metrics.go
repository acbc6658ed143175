package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics is the daemon's set of collectors.
type Metrics struct {
	CycleSeconds    prometheus.Histogram
	OrdersPlaced    prometheus.Counter
	OrdersCancelled prometheus.Counter
	OrdersRejected  *prometheus.CounterVec // label reason
	Fills           prometheus.Counter
	RateLimited     prometheus.Counter // 429 answers from the exchange
	Retries         prometheus.Counter
	// RedirectsRefused counts redirects the client refused to follow (any
	// on an authenticated call, any to another host on a public read).
	RedirectsRefused *prometheus.CounterVec // label endpoint
	// RetryAfterCapped counts answers whose Retry-After asked for more than
	// exchange.max_retry_after (the client waited the cap instead).
	RetryAfterCapped *prometheus.CounterVec // label endpoint
	TokensInUse      *prometheus.GaugeVec   // label bucket: fraction of the bucket in use
	Position         *prometheus.GaugeVec   // labels market, outcome: shares
	PnL              *prometheus.GaugeVec   // label kind: realized, marked
	KillSwitch       prometheus.Gauge       // 1 when tripped
	KillSwitchTrips  *prometheus.CounterVec
	BookAgeSeconds   *prometheus.GaugeVec // label market
	// MarketDataRefused counts books and market terms refused as invalid
	// (exchange.ValidateBook, exchange.ValidateMarket).
	MarketDataRefused *prometheus.CounterVec // label reason
	LiveOrders        prometheus.Gauge
	Markets           prometheus.Gauge
}

// New creates the collectors and registers them on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		CycleSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "mmbot_cycle_seconds", Help: "Duration of one quote cycle over all markets.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}),
		OrdersPlaced:    prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_orders_placed_total", Help: "Orders accepted by the exchange."}),
		OrdersCancelled: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_orders_cancelled_total", Help: "Orders the exchange confirmed cancelled."}),
		OrdersRejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_orders_rejected_total",
			Help: "Orders not sent or refused, by reason (risk reasons, exchange errors)."}, []string{"reason"}),
		Fills:       prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_fills_total", Help: "Fills of our orders."}),
		RateLimited: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_http_429_total", Help: "Requests the exchange throttled (429). Should stay 0."}),
		Retries:     prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_http_retries_total", Help: "Retried idempotent reads."}),
		RedirectsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_http_redirects_refused_total",
			Help: "Redirects refused: none is followed on an authenticated call, none to another host on a public read."}, []string{"endpoint"}),
		RetryAfterCapped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_http_retry_after_capped_total",
			Help: "Answers whose Retry-After asked for more than exchange.max_retry_after; the client waited the cap."}, []string{"endpoint"}),
		TokensInUse: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mmbot_ratelimit_in_use_ratio",
			Help: "Fraction of each client-side rate-limit bucket in use (0 = full bucket available)."}, []string{"bucket"}),
		Position:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mmbot_position_shares", Help: "Position in shares per market and outcome."}, []string{"market", "outcome"}),
		PnL:        prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mmbot_pnl", Help: "Session PnL in collateral units, realized and marked."}, []string{"kind"}),
		KillSwitch: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_kill_switch_tripped", Help: "1 while the kill switch is tripped."}),
		KillSwitchTrips: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_kill_switch_trips_total",
			Help: "Kill switch trips by reason."}, []string{"reason"}),
		BookAgeSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mmbot_book_age_seconds", Help: "Age of the newest book per market."}, []string{"market"}),
		MarketDataRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_market_data_refused_total",
			Help: "Books and market terms refused as invalid (the market is not quoted while they are), by reason."}, []string{"reason"}),
		LiveOrders: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_live_orders", Help: "Orders live on the exchange according to the journal."}),
		Markets:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_markets", Help: "Markets being quoted."}),
	}
	for _, c := range []prometheus.Collector{m.CycleSeconds, m.OrdersPlaced, m.OrdersCancelled, m.OrdersRejected, m.Fills,
		m.RateLimited, m.Retries, m.RedirectsRefused, m.RetryAfterCapped, m.TokensInUse, m.Position, m.PnL, m.KillSwitch, m.KillSwitchTrips, m.BookAgeSeconds, m.MarketDataRefused,
		m.LiveOrders, m.Markets} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

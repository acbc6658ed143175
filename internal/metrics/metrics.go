package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
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

	CycleErrors   prometheus.Counter     // cycles that ended in an error
	LastCycle     prometheus.Gauge       // Unix time of the last cycle without error (the start before the first)
	AuthFailures  *prometheus.CounterVec // label status: 401 and 403 answers
	RateCap       *prometheus.GaugeVec   // label bucket: the venue's cap in requests per second
	RateAdmitted  *prometheus.CounterVec // label bucket: units the client let out
	Drawdown      prometheus.Gauge       // the loss the kill switch compares with MaxDrawdown
	MaxDrawdown   prometheus.Gauge       // risk.max_drawdown (0 = off)
	MaxBookAge    prometheus.Gauge       // risk.max_book_age in seconds (0 = off)
	MarkoutGain   *prometheus.CounterVec // label horizon: collateral, fills the fair value moved towards
	MarkoutLoss   *prometheus.CounterVec // label horizon: collateral, fills the fair value moved against
	MarkoutShares *prometheus.CounterVec // label horizon: shares whose markout was measured
	// MarkoutMidGain and MarkoutMidLoss are the mid-to-mid markouts: the
	// fair value's move from the fill to horizon after it (the adverse
	// selection, without the half spread the fill earned).
	MarkoutMidGain *prometheus.CounterVec // label horizon: collateral
	MarkoutMidLoss *prometheus.CounterVec // label horizon: collateral

	FillsReversed  prometheus.Counter // fills taken back: their trade failed at settlement
	TradesPending  prometheus.Gauge   // trades of ours not final yet (MATCHED, MINED, RETRYING)
	KillAutoClears prometheus.Counter // trips that cleared by themselves once the exchange was back

	RewardsEarned prometheus.Gauge     // the loop's estimate of the liquidity rewards earned since the start, collateral
	RewardShare   *prometheus.GaugeVec // label market: our share of the market's reward score at the last cycle
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

		CycleErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_cycle_errors_total", Help: "Quote cycles that ended in an error."}),
		LastCycle: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_cycle_last_success_timestamp_seconds",
			Help: "Unix time at which the last quote cycle without error ended (the process start before the first)."}),
		AuthFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_http_auth_failures_total",
			Help: "Answers 401 and 403 from the exchange: credentials refused or not allowed. Should stay 0."}, []string{"status"}),
		RateCap: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mmbot_ratelimit_cap_per_second",
			Help: "The exchange's rate cap of each client-side bucket, in requests (or order units) per second, averaged over its window."}, []string{"bucket"}),
		RateAdmitted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_ratelimit_admitted_total",
			Help: "Requests (or order units) each client-side rate-limit bucket let out."}, []string{"bucket"}),
		Drawdown: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_drawdown",
			Help: "Marked PnL's fall from its high-water mark (or from the UTC day's start, risk.drawdown_window = day), in collateral: what the kill switch compares with risk.max_drawdown."}),
		MaxDrawdown: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_risk_max_drawdown", Help: "risk.max_drawdown in collateral (0: off)."}),
		MaxBookAge:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_risk_max_book_age_seconds", Help: "risk.max_book_age in seconds (0: off)."}),
		MarkoutGain: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_markout_gain_total",
			Help: "Markouts of fills that the fair value moved towards, horizon after the fill: size times the move, in collateral."}, []string{"horizon"}),
		MarkoutLoss: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_markout_loss_total",
			Help: "Markouts of fills that the fair value moved against, horizon after the fill: size times the move, in collateral."}, []string{"horizon"}),
		MarkoutShares: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_markout_shares_total",
			Help: "Shares filled whose markout at horizon was measured."}, []string{"horizon"}),
		MarkoutMidGain: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_markout_mid_gain_total",
			Help: "Mid-to-mid markouts of fills the fair value moved towards: size times the fair value's move from the fill to horizon after it, in collateral."}, []string{"horizon"}),
		MarkoutMidLoss: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmbot_markout_mid_loss_total",
			Help: "Mid-to-mid markouts of fills the fair value moved against: size times the fair value's move from the fill to horizon after it, in collateral."}, []string{"horizon"}),
		FillsReversed: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_fills_reversed_total",
			Help: "Fills taken back because their trade failed at settlement (RETRYING, then FAILED)."}),
		TradesPending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_trades_pending",
			Help: "Trades of ours not final yet (MATCHED, MINED or RETRYING): their fills are booked as pending."}),
		KillAutoClears: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmbot_kill_switch_auto_clears_total",
			Help: "Kill-switch trips caused by the exchange being away that cleared by themselves (risk.auto_clear_after)."}),
		RewardsEarned: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mmbot_rewards_earned",
			Help: "Liquidity rewards earned since the start as the loop estimates them (share of each market's score × its daily rate over time), in collateral; not in mmbot_pnl."}),
		RewardShare: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mmbot_reward_share",
			Help: "Our share (0 to 1) of each paying market's liquidity-reward score at the last cycle."}, []string{"market"}),
	}
	// The two statuses exist from the start, at 0, so that the first 401
	// is an increase (a series born at 1 has none).
	m.AuthFailures.WithLabelValues("401")
	m.AuthFailures.WithLabelValues("403")
	for _, c := range []prometheus.Collector{m.CycleSeconds, m.OrdersPlaced, m.OrdersCancelled, m.OrdersRejected, m.Fills,
		m.RateLimited, m.Retries, m.RedirectsRefused, m.RetryAfterCapped, m.TokensInUse, m.Position, m.PnL, m.KillSwitch, m.KillSwitchTrips, m.BookAgeSeconds, m.MarketDataRefused,
		m.LiveOrders, m.Markets, m.CycleErrors, m.LastCycle, m.AuthFailures, m.RateCap, m.RateAdmitted, m.Drawdown,
		m.MaxDrawdown, m.MaxBookAge, m.MarkoutGain, m.MarkoutLoss, m.MarkoutShares, m.MarkoutMidGain, m.MarkoutMidLoss, m.FillsReversed, m.TradesPending, m.KillAutoClears,
		m.RewardsEarned, m.RewardShare} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// NewRegistry returns the daemon's registry: a fresh one (never the global
// registry) with the daemon's collectors, the process's (CPU, resident
// memory, file descriptors, start time: process_*) and the Go runtime's
// (go_*). The dashboard and alert rules in configs/monitoring name only
// metrics of this registry; a test holds them to it.
func NewRegistry() (*prometheus.Registry, *Metrics, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, nil, err
	}
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, nil, err
	}
	m, err := New(reg)
	if err != nil {
		return nil, nil, err
	}
	return reg, m, nil
}

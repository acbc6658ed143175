package configs

import (
	"net"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

func (r Risk) validate(v *validator) {
	for _, d := range []struct {
		key string
		val decimal.Decimal
	}{
		{"risk.max_position", r.MaxPosition},
		{"risk.max_total_position", r.MaxTotalPosition},
		{"risk.max_collateral_at_risk", r.MaxCollateralAtRisk},
		{"risk.max_order_size", r.MaxOrderSize},
		{"risk.max_order_notional", r.MaxOrderNotional},
		{"risk.max_drawdown", r.MaxDrawdown},
	} {
		v.check(d.val.IsPositive(), d.key, d.val, "must be > 0")
	}
	v.check(r.MaxPosition.LessThanOrEqual(r.MaxTotalPosition), "risk.max_position", r.MaxPosition, "must be <= risk.max_total_position (%s)", r.MaxTotalPosition)
	v.check(r.MaxOpenOrdersMarket >= 1, "risk.max_open_orders_market", r.MaxOpenOrdersMarket, "must be >= 1")
	v.check(r.MaxOpenOrdersTotal >= r.MaxOpenOrdersMarket, "risk.max_open_orders_total", r.MaxOpenOrdersTotal, "must be >= risk.max_open_orders_market (%d)", r.MaxOpenOrdersMarket)
	v.check(r.PriceCollar.IsPositive() && r.PriceCollar.LessThan(one), "risk.price_collar", r.PriceCollar, "must be in (0, 1)")
	v.check(r.Cooldown >= 0, "risk.cooldown", r.Cooldown, "must be >= 0")
	v.check(oneOf(r.DrawdownWindow, "session", "day"), "risk.drawdown_window", r.DrawdownWindow, "must be session or day")
	v.check(r.MaxConsecutiveErrors >= 1, "risk.max_consecutive_errors", r.MaxConsecutiveErrors, "must be >= 1")
	v.check(finite(r.MaxErrorRate) && r.MaxErrorRate > 0 && r.MaxErrorRate <= 1, "risk.max_error_rate", r.MaxErrorRate, "must be in (0, 1]")
	v.check(r.ErrorWindow > 0, "risk.error_window", r.ErrorWindow, "must be > 0")
	v.check(r.MaxBookAge > 0, "risk.max_book_age", r.MaxBookAge, "must be > 0")
	v.check(r.MaxClockSkew > 0, "risk.max_clock_skew", r.MaxClockSkew, "must be > 0")
	v.check(r.MaxCancelThrottle >= 0, "risk.max_cancel_throttle", r.MaxCancelThrottle, "must be >= 0")
	v.check(r.AutoClearAfter >= 0, "risk.auto_clear_after", r.AutoClearAfter, "must be >= 0")
	v.check(r.AutoClearMaxPerDay >= 1, "risk.auto_clear_max_per_day", r.AutoClearMaxPerDay, "must be >= 1")
}

func (s State) validate(v *validator, e Exchange) {
	v.check(s.Path != "", "state.path", s.Path, "must not be empty")
	v.check(s.LockTimeout > 0, "state.lock_timeout", s.LockTimeout, "must be > 0")
	v.check(oneOf(s.UnknownOrders, "report", "cancel", "adopt"), "state.unknown_orders", s.UnknownOrders, "must be report, cancel or adopt")
	// An order may be on its way as long as its request is: a grace within
	// the request timeout would fail orders that then arrive.
	v.check(s.InflightGrace == 0 || s.InflightGrace > e.RequestTimeout, "state.inflight_grace", s.InflightGrace,
		"must be 0 (exchange.request_timeout + 5s) or more than exchange.request_timeout (%s)", e.RequestTimeout)
	v.check(s.Retention == 0 || s.Retention >= Duration(time.Minute), "state.retention", s.Retention, "must be 0s (keep every order) or >= 1m")
	v.check(s.PruneBatch >= 1 && s.PruneBatch <= 100000, "state.prune_batch", s.PruneBatch, "must be in 1..100000")
}

func (m Metrics) validate(v *validator) {
	host, port, err := net.SplitHostPort(m.Listen)
	if err != nil {
		v.check(false, "metrics.listen", m.Listen, "must be host:port")
		return
	}
	p, perr := strconv.Atoi(port)
	v.check(perr == nil && p >= 0 && p <= 65535, "metrics.listen", m.Listen, "port must be a number in 0..65535")
	v.check(!m.Enabled || m.AllowPublic || isLoopbackHost(host), "metrics.listen", m.Listen, "is not a loopback address; set metrics.allow_public = true to expose metrics")
}

func (s Shutdown) validate(v *validator) {
	v.check(s.CancelTimeout > 0, "shutdown.cancel_timeout", s.CancelTimeout, "must be > 0")
}

func (s Sim) validate(v *validator) {
	v.check(s.Markets >= 1 && s.Markets <= 1000, "sim.markets", s.Markets, "must be in 1..1000")
}

func (b Backtest) validate(v *validator) {
	v.check(oneOf(b.FillModel, "queue", "conservative", "optimistic"), "backtest.fill_model", b.FillModel, "must be queue, conservative or optimistic")
	v.check(b.LatencyOrder >= 0, "backtest.latency_order", b.LatencyOrder, "must be >= 0")
	v.check(b.LatencyCancel >= 0, "backtest.latency_cancel", b.LatencyCancel, "must be >= 0")
	v.check(b.LatencyData >= 0, "backtest.latency_data", b.LatencyData, "must be >= 0")
	v.check(b.MakerFeeBps >= -10000 && b.MakerFeeBps <= 10000, "backtest.maker_fee_bps", b.MakerFeeBps, "must be in -10000..10000 (negative is a rebate)")
	v.check(b.TakerFeeBps >= 0 && b.TakerFeeBps <= 10000, "backtest.taker_fee_bps", b.TakerFeeBps, "must be in 0..10000")
}

package accounting

import (
	"math"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Ratio is a statistic that may be undefined (NaN) or infinite; it is
// written to JSON as a number, or null when it is not finite.
type Ratio float64

// MarshalJSON implements json.Marshaler.
func (r Ratio) MarshalJSON() ([]byte, error) {
	f := float64(r)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// Headline is the handful of figures that compare runs: one row of a
// sweep, and the JSON form of a run.
type Headline struct {
	PnL          decimal.Decimal `json:"pnl"`
	Realized     decimal.Decimal `json:"realized"`
	SpreadPnL    decimal.Decimal `json:"spread_pnl"`
	InventoryPnL decimal.Decimal `json:"inventory_pnl"`
	Fees         decimal.Decimal `json:"fees"`
	Volume       decimal.Decimal `json:"volume"`
	Fills        int             `json:"fills"`
	FillRatio    Ratio           `json:"fill_ratio"`
	AvgWait      time.Duration   `json:"avg_queue_wait_ns"`
	MaxDrawdown  decimal.Decimal `json:"max_drawdown"`
	Sharpe       Ratio           `json:"sharpe"`
	Sortino      Ratio           `json:"sortino"`
	// RatioSamples and RatioInterval are the per-interval PnL changes Sharpe
	// and Sortino are computed from; both are null below
	// MinRatioSamples / MinRatioSpan.
	RatioSamples  int             `json:"ratio_samples"`
	RatioInterval time.Duration   `json:"ratio_interval_ns"`
	MaxAbsPos     decimal.Decimal `json:"max_abs_position"`  // the largest of any token
	MeanAbsPos    Ratio           `json:"mean_abs_position"` // summed over tokens
	EndPos        decimal.Decimal `json:"end_abs_position"`  // Σ |position| at the end
	Orders        int             `json:"orders"`
	Cancels       int             `json:"cancels"`
	OrdersPeak    int             `json:"orders_peak_10s"`
	CancelsPeak   int             `json:"cancels_peak_10s"`
	RewardShare   Ratio           `json:"reward_share"`
	Markout10s    Ratio           `json:"markout_10s"`
}

// HeadlineOf extracts the headline figures of r.
func HeadlineOf(r *Results) Headline {
	s := &r.Total
	h := Headline{PnL: s.PnL, Realized: s.Realized, SpreadPnL: s.SpreadPnL, InventoryPnL: s.InventoryPnL, Fees: s.Fees,
		Volume: s.Volume, Fills: s.Fills, FillRatio: Ratio(s.FillRatio()), AvgWait: s.AvgWait, MaxDrawdown: r.MaxDrawdown,
		Sharpe: Ratio(r.Sharpe), Sortino: Ratio(r.Sortino), Orders: s.OrdersSent, Cancels: s.CancelsSent,
		RewardShare: Ratio(r.RewardShare()), Markout10s: Ratio(math.NaN()), RatioSamples: r.RatioSamples, RatioInterval: r.Interval}
	var mean float64
	for _, t := range r.Tokens {
		if t.MaxAbsPos.GreaterThan(h.MaxAbsPos) {
			h.MaxAbsPos = t.MaxAbsPos
		}
		mean += t.MeanAbsPos
		h.EndPos = h.EndPos.Add(t.Position.Abs())
	}
	h.MeanAbsPos = Ratio(mean)
	for _, u := range r.Rates {
		if u.Window == 10*time.Second {
			if u.Name == "orders" {
				h.OrdersPeak = u.Peak
			} else {
				h.CancelsPeak = u.Peak
			}
		}
	}
	for _, m := range r.Markouts {
		if m.Horizon == 10*time.Second && m.Count > 0 {
			h.Markout10s = Ratio(m.Mean)
		}
	}
	return h
}

package accounting

import (
	"math"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// minutesPerYear annualises per-minute statistics: prediction markets trade
// around the clock, so a year is 365 × 24 × 60 minutes.
const minutesPerYear = 365 * 24 * 60

// annualisation returns sqrt(periods per year) for a sampling interval.
func annualisation(iv time.Duration) float64 {
	return math.Sqrt(float64(minutesPerYear) * float64(time.Minute) / float64(iv))
}

// sharpe is mean/stddev (sample, n−1) of the per-period PnL changes, times
// the annualisation factor. NaN with fewer than two periods or no variance.
func sharpe(r []float64, ann float64) float64 {
	if len(r) < 2 {
		return math.NaN()
	}
	m := mean(r)
	var ss float64
	for _, x := range r {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / float64(len(r)-1))
	if sd == 0 {
		return math.NaN()
	}
	return m / sd * ann
}

// sortino is mean / downside deviation, where the downside deviation is
// sqrt(Σ min(r, 0)² / n), times the annualisation factor. +Inf when no
// period lost money and the mean is positive; NaN with fewer than two
// periods.
func sortino(r []float64, ann float64) float64 {
	if len(r) < 2 {
		return math.NaN()
	}
	var ss float64
	for _, x := range r {
		if x < 0 {
			ss += x * x
		}
	}
	dd := math.Sqrt(ss / float64(len(r)))
	m := mean(r)
	if dd == 0 {
		if m > 0 {
			return math.Inf(1)
		}
		return math.NaN()
	}
	return m / dd * ann
}

func mean(r []float64) float64 {
	if len(r) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range r {
		s += x
	}
	return s / float64(len(r))
}

// median of r (NaN when empty); r is not modified.
func median(r []float64) float64 {
	if len(r) == 0 {
		return math.NaN()
	}
	s := slices.Clone(r)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// maxDrawdown is the largest fall from a running peak of the series (exact).
func maxDrawdown(v []decimal.Decimal) decimal.Decimal {
	dd := decimal.Zero
	var peak decimal.Decimal
	for i, x := range v {
		if i == 0 || x.GreaterThan(peak) {
			peak = x
		}
		if d := peak.Sub(x); d.GreaterThan(dd) {
			dd = d
		}
	}
	return dd
}

package strategy

import (
	"fmt"
	"math"
	"time"
)

// VolParams configure the volatility estimator.
type VolParams struct {
	// HalfLife is the time over which an observation's weight halves.
	HalfLife time.Duration
	// Prior is the starting variance per second of the logit fair value,
	// used until observations replace it (0.04/86400 ≈ 4.6e-7 means a daily
	// standard deviation of 0.2 in logit, about ±5 cents around 0.5).
	Prior float64
}

// Validate reports the first invalid field by name.
func (p VolParams) Validate() error {
	if p.HalfLife <= 0 {
		return fmt.Errorf("strategy: vol: HalfLife must be positive, got %s", p.HalfLife)
	}
	if !(p.Prior > 0) || math.IsInf(p.Prior, 0) {
		return fmt.Errorf("strategy: vol: Prior must be a positive variance per second, got %v", p.Prior)
	}
	return nil
}

// VolEstimator is an exponentially weighted estimate of the variance per
// second of the fair value in logit space. Each update with elapsed time dt
// and logit change r mixes r²/dt in with weight 1 − 2^(−dt/HalfLife), so the
// weights follow time, not the number of updates. It starts at the prior.
type VolEstimator struct {
	p     VolParams
	v     float64
	lastX float64
	last  time.Time
	has   bool
	n     int
}

// NewVolEstimator returns an estimator at its prior.
func NewVolEstimator(p VolParams) (VolEstimator, error) {
	if err := p.Validate(); err != nil {
		return VolEstimator{}, err
	}
	return VolEstimator{p: p, v: p.Prior}, nil
}

// Update adds the logit fair value x observed at t. Observations at or
// before the previous one are ignored; so are non-finite values.
func (e *VolEstimator) Update(x float64, t time.Time) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	if !e.has {
		e.lastX, e.last, e.has = x, t, true
		return
	}
	dt := t.Sub(e.last).Seconds()
	if dt <= 0 {
		return
	}
	r := x - e.lastX
	alpha := 1 - math.Exp2(-dt/e.p.HalfLife.Seconds())
	e.v += alpha * (r*r/dt - e.v)
	e.lastX, e.last = x, t
	e.n++
}

// Variance returns the variance per second in logit space.
func (e *VolEstimator) Variance() float64 { return e.v }

// Samples returns the number of increments seen.
func (e *VolEstimator) Samples() int { return e.n }

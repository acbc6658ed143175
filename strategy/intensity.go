package strategy

import (
	"fmt"
	"math"
	"time"
)

// IntensityParams configure the order-arrival intensity estimator.
type IntensityParams struct {
	HalfLife    time.Duration // weight of a trade halves over this time
	BinWidth    float64       // width of a distance bin, in logit units
	Bins        int           // number of bins; trades farther out fall in the last
	PriorA      float64       // prior λ(0): trades per second reaching the fair value
	PriorK      float64       // prior decay per logit unit of distance
	PriorWeight float64       // how many trades' worth of evidence the prior carries
}

// Validate reports the first invalid field by name.
func (p IntensityParams) Validate() error {
	pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	switch {
	case p.HalfLife <= 0:
		return fmt.Errorf("strategy: intensity: HalfLife must be positive, got %s", p.HalfLife)
	case !pos(p.BinWidth):
		return fmt.Errorf("strategy: intensity: BinWidth must be positive, got %v", p.BinWidth)
	case p.Bins < 2 || p.Bins > 256:
		return fmt.Errorf("strategy: intensity: Bins must be in [2,256], got %d", p.Bins)
	case !pos(p.PriorA):
		return fmt.Errorf("strategy: intensity: PriorA must be positive, got %v", p.PriorA)
	case !pos(p.PriorK):
		return fmt.Errorf("strategy: intensity: PriorK must be positive, got %v", p.PriorK)
	case !(p.PriorWeight >= 0) || math.IsInf(p.PriorWeight, 0):
		return fmt.Errorf("strategy: intensity: PriorWeight must not be negative, got %v", p.PriorWeight)
	}
	return nil
}

// IntensityEstimator fits λ(δ) = A·e^(−kδ), the rate at which trades reach a
// distance δ (logit units) from the fair value, from the tape.
//
// Each trade's distance from the fair value at the time it is seen goes
// into a bin; counts and the observed time decay with HalfLife. The rate of
// trades reaching distance δ_i = i·BinWidth is the count in bins ≥ i over the
// observed time, and ln λ is fitted on δ by least squares weighted by those
// counts. The fit is blended with the prior by evidence: with n (decayed)
// trades, weight n/(n+PriorWeight) on the fit, and k stays within
// [PriorK/10, 10·PriorK]. With no usable fit it returns the prior.
type IntensityEstimator struct {
	p         IntensityParams
	counts    []float64
	exposure  float64 // decayed seconds observed
	last      time.Time
	lastTrade time.Time
	has       bool
}

// NewIntensityEstimator returns an estimator with no observations.
func NewIntensityEstimator(p IntensityParams) (IntensityEstimator, error) {
	if err := p.Validate(); err != nil {
		return IntensityEstimator{}, err
	}
	return IntensityEstimator{p: p, counts: make([]float64, p.Bins)}, nil
}

// Update decays the counts to now, adds the observed time, and counts the
// trades newer than the newest trade seen so far, measuring each against
// fair (the YES fair value). Trades must be oldest first (the new ones are
// found from the newest back); a trade stamped exactly at the newest time
// already seen is not counted again.
func (e *IntensityEstimator) Update(fair float64, trades []TradePrint, now time.Time) {
	e.decayTo(now)
	// Oldest first: the trades newer than the newest seen are a suffix, so
	// the scan runs from the newest back to the first one seen before (an
	// unchanged tape costs one comparison). A trade's count does not depend
	// on the order they are taken in: each adds one to its bin.
	var x float64
	newest, logit := e.lastTrade, false
	for i := len(trades) - 1; i >= 0; i-- {
		t := &trades[i]
		if !t.Time.After(e.lastTrade) {
			break
		}
		if t.Time.After(now) || !t.Outcome.Valid() {
			continue
		}
		if !logit {
			x, logit = Logit(fair), true
		}
		newest = e.count(t, x, newest)
	}
	e.lastTrade = newest
}

// count adds one new trade to the bin of its distance from the fair value
// (logit x) and returns the newest trade time with it; a trade priced
// outside (0, 1) counts nowhere.
func (e *IntensityEstimator) count(t *TradePrint, x float64, newest time.Time) time.Time {
	p := t.Price.InexactFloat64()
	if !(p > 0 && p < 1) {
		return newest
	}
	d := math.Abs(Logit(toYes(t.Outcome, p)) - x)
	b := min(int(d/e.p.BinWidth), len(e.counts)-1)
	e.counts[b]++
	if t.Time.After(newest) {
		newest = t.Time
	}
	return newest
}

// Fit returns the current A (trades per second at distance 0) and k (per
// logit unit).
func (e *IntensityEstimator) Fit() (a, k float64) {
	a, k = e.p.PriorA, e.p.PriorK
	if e.exposure <= 0 {
		return a, k
	}
	var sw, sx, sy, total float64
	exceed := 0.0
	// Walk from the far bin inward so exceed is the count at distance ≥ δ_i.
	for i := len(e.counts) - 1; i >= 0; i-- {
		exceed += e.counts[i]
		if exceed <= 0 {
			continue
		}
		xi, yi := float64(i)*e.p.BinWidth, math.Log(exceed/e.exposure)
		sw += exceed
		sx += exceed * xi
		sy += exceed * yi
	}
	total = exceed
	if sw == 0 {
		return a, k
	}
	mx, my := sx/sw, sy/sw
	var sxx, sxy float64
	exceed = 0
	for i := len(e.counts) - 1; i >= 0; i-- {
		exceed += e.counts[i]
		if exceed <= 0 {
			continue
		}
		dx := float64(i)*e.p.BinWidth - mx
		sxx += exceed * dx * dx
		sxy += exceed * dx * (math.Log(exceed/e.exposure) - my)
	}
	if sxx <= 0 {
		return a, k
	}
	slope := sxy / sxx
	kFit, aFit := -slope, math.Exp(my-slope*mx)
	if !(kFit > 0) || math.IsInf(kFit, 0) || !(aFit > 0) || math.IsInf(aFit, 0) {
		return a, k
	}
	w := total / (total + e.p.PriorWeight)
	k = w*kFit + (1-w)*e.p.PriorK
	k = min(max(k, e.p.PriorK/10), 10*e.p.PriorK)
	a = math.Exp(w*math.Log(aFit) + (1-w)*math.Log(e.p.PriorA))
	return a, k
}

// Trades returns the decayed number of trades counted.
func (e *IntensityEstimator) Trades() float64 {
	var n float64
	for _, c := range e.counts {
		n += c
	}
	return n
}

// decayTo ages the counts and the exposure to now (the first call starts
// the clock).
func (e *IntensityEstimator) decayTo(now time.Time) {
	if !e.has {
		e.last, e.has = now, true
	}
	if dt := now.Sub(e.last).Seconds(); dt > 0 {
		f := math.Exp2(-dt / e.p.HalfLife.Seconds())
		for i := range e.counts {
			e.counts[i] *= f
		}
		e.exposure = e.exposure*f + dt
		e.last = now
	}
}

package strategy

import (
	"time"
)

// EstimatorParams configure the per-market estimators.
type EstimatorParams struct {
	Vol       VolParams
	Intensity IntensityParams
}

// DefaultEstimatorParams returns the documented defaults (docs/strategies.md).
func DefaultEstimatorParams() EstimatorParams {
	return EstimatorParams{
		Vol: VolParams{HalfLife: 10 * time.Minute, Prior: 0.04 / 86400},
		Intensity: IntensityParams{
			HalfLife: time.Hour, BinWidth: 0.02, Bins: 30,
			PriorA: 0.01, PriorK: 15, PriorWeight: 20,
		},
	}
}

// Validate reports the first invalid field by name.
func (p EstimatorParams) Validate() error {
	if err := p.Vol.Validate(); err != nil {
		return err
	}
	return p.Intensity.Validate()
}

// MarketState holds one market's estimators. Observe is deterministic: the
// same snapshots in the same order give the same state.
type MarketState struct {
	Vol       VolEstimator
	Intensity IntensityEstimator
	Fair      float64   // the last fair value observed
	HasFair   bool      // whether Fair is set
	Updated   time.Time // the snapshot time of the last Observe
	// Adverse is what the market's flow said about adverse selection
	// (WithAdverse reads it): Observe adds the trades through our level
	// and the fair value's jumps, the loop our fills and their markouts.
	Adverse AdverseState
	// Rewards is WithRewards' last decision for the market.
	Rewards RewardDecision
}

// NewMarketState returns a state with the estimators at their priors.
func NewMarketState(p EstimatorParams) (*MarketState, error) {
	v, err := NewVolEstimator(p.Vol)
	if err != nil {
		return nil, err
	}
	in, err := NewIntensityEstimator(p.Intensity)
	if err != nil {
		return nil, err
	}
	return &MarketState{Vol: v, Intensity: in}, nil
}

// Observe updates the estimators from a snapshot: the fair value's logit
// into the volatility, the new trades into the intensity, and the
// adverse-selection facts (prints through our resting prices; the fair
// value's move against the volatility estimated before it). A snapshot with
// no fair value updates nothing else but the prints and the time.
func (m *MarketState) Observe(s *Snapshot) {
	f, ok := s.FairValue()
	m.ObserveFair(s, f, ok)
}

// ObserveFair is Observe for a caller that has s's fair value already:
// f and ok must be what s.FairValue() returns.
func (m *MarketState) ObserveFair(s *Snapshot, f float64, ok bool) {
	m.Updated = s.Now
	m.Adverse.observe(s, f, ok, m.Vol.lastX, m.Vol.last, m.Vol.has, m.Vol.Variance())
	if !ok {
		return
	}
	m.Fair, m.HasFair = f, true
	m.Vol.Update(Logit(f), s.Now)
	m.Intensity.Update(f, s.Trades, s.Now)
}

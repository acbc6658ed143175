package strategy

import (
	"fmt"
	"math"
	"time"
)

// AvellanedaParams configure the Avellaneda–Stoikov model in logit space.
type AvellanedaParams struct {
	Gamma         float64       // risk aversion γ, per logit unit per inventory unit
	K             float64       // order-arrival decay k per logit unit; 0 uses the intensity estimate
	Horizon       time.Duration // T−t: the inventory horizon, or the time to the end date when that is sooner
	MaxHorizon    time.Duration // caps T−t further (0: no cap)
	InventoryUnit float64       // shares per unit of q
	Ladder        Ladder
}

// Validate reports the first invalid field by name.
func (p AvellanedaParams) Validate() error {
	const m = "avellaneda"
	if err := checkPos(m, "Gamma", p.Gamma); err != nil {
		return err
	}
	if err := checkPosOrZero(m, "K", p.K); err != nil {
		return err
	}
	if p.Horizon <= 0 {
		return fmt.Errorf("strategy: %s: Horizon must be positive, got %s", m, p.Horizon)
	}
	if p.MaxHorizon < 0 {
		return fmt.Errorf("strategy: %s: MaxHorizon must not be negative, got %s", m, p.MaxHorizon)
	}
	if err := checkPos(m, "InventoryUnit", p.InventoryUnit); err != nil {
		return err
	}
	return p.Ladder.Validate(m)
}

// Avellaneda is the inventory-aware model of Avellaneda and Stoikov (2008),
// with the mid-price replaced by the logit of the fair value:
//
//	x = ln(p/(1−p)),  r = x − q·γ·σ²·(T−t),  spread = γ·σ²·(T−t) + (2/γ)·ln(1 + γ/k)
//
// bid = sigmoid(r − spread/2), ask = sigmoid(r + spread/2). σ² is the
// estimated variance per second of x, T−t the seconds of Horizon (or to the
// end date when sooner), q the net YES position over InventoryUnit. The
// ladder bounds level 0's width around sigmoid(r) and keeps both sides
// off the opposite best price (see Ladder.level0).
type Avellaneda struct{ p AvellanedaParams }

// NewAvellaneda validates p and returns the model.
func NewAvellaneda(p AvellanedaParams) (*Avellaneda, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Avellaneda{p: p}, nil
}

// ASQuote is the model's level-0 output in logit space.
type ASQuote struct {
	Reservation, Spread float64
	Bid, Ask            float64 // logit
}

// AvellanedaQuote evaluates the formulas: x the logit fair value, q the
// inventory in units, gamma, sigma2 per second, tau in seconds, k per logit
// unit.
func AvellanedaQuote(x, q, gamma, sigma2, tau, k float64) ASQuote {
	risk := gamma * sigma2 * tau
	r := x - q*risk
	spread := risk + 2/gamma*math.Log1p(gamma/k)
	return ASQuote{Reservation: r, Spread: spread, Bid: r - spread/2, Ask: r + spread/2}
}

// horizon returns T−t in seconds: Horizon, or the time to the end date when
// that is sooner. T−t is the time over which the inventory is carried at risk,
// not the life of the market: with weeks to an end date, γσ²(T−t) is tens of
// logit units, the spread covers the whole of (0,1) and one fill moves the
// reservation price to 0 or 1.
func (p AvellanedaParams) horizon(s *Snapshot) float64 {
	tau := p.Horizon
	if end, ok := s.TimeToEnd(); ok {
		tau = min(tau, end)
	}
	if p.MaxHorizon > 0 {
		tau = min(tau, p.MaxHorizon)
	}
	return tau.Seconds()
}

// Quote implements Model. It needs st for σ² (and k when K is 0).
func (m *Avellaneda) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	if st == nil {
		return dst
	}
	fv, ok := fairOf(s, st)
	if !ok {
		return dst
	}
	k := m.p.K
	if k == 0 {
		_, k = st.Intensity.Fit()
	}
	a := AvellanedaQuote(Logit(fv), inventory(s, m.p.InventoryUnit), m.p.Gamma, st.Vol.Variance(), m.p.horizon(s), k)
	return m.p.Ladder.emit(dst, s, a.Reservation, a.Bid, a.Ask)
}

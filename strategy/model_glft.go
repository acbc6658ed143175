package strategy

import (
	"math"
)

// GLFTParams configure the horizon-free model of Guéant, Lehalle and
// Fernandez-Tapia, in logit space.
type GLFTParams struct {
	Gamma         float64 // risk aversion γ
	K             float64 // intensity decay k per logit unit; 0 uses the estimate
	A             float64 // intensity at distance 0, trades per second; 0 uses the estimate
	InventoryUnit float64 // shares per unit of q
	Ladder        Ladder
}

// Validate reports the first invalid field by name.
func (p GLFTParams) Validate() error {
	const m = "glft"
	if err := checkPos(m, "Gamma", p.Gamma); err != nil {
		return err
	}
	if err := checkPosOrZero(m, "K", p.K); err != nil {
		return err
	}
	if err := checkPosOrZero(m, "A", p.A); err != nil {
		return err
	}
	if err := checkPos(m, "InventoryUnit", p.InventoryUnit); err != nil {
		return err
	}
	return p.Ladder.Validate(m)
}

// GLFT is the asymptotic (long-horizon) solution of Guéant, Lehalle and
// Fernandez-Tapia (2013), for markets whose end date is too far for T−t to
// mean anything:
//
//	c1 = (1/γ)·ln(1 + γ/k)
//	c2 = sqrt( σ²·γ / (2·k·A) · (1 + γ/k)^(1 + k/γ) )
//	bid distance δb = c1 + (2q+1)/2 · c2,  ask distance δa = c1 − (2q−1)/2 · c2
//
// around x = logit(fair); bid = sigmoid(x − δb), ask = sigmoid(x + δa).
type GLFT struct{ p GLFTParams }

// NewGLFT validates p and returns the model.
func NewGLFT(p GLFTParams) (*GLFT, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &GLFT{p: p}, nil
}

// GLFTDistances returns the bid and ask distances (logit units) from the
// fair value for inventory q.
func GLFTDistances(q, gamma, sigma2, k, a float64) (bid, ask float64) {
	c1 := math.Log1p(gamma/k) / gamma
	c2 := math.Sqrt(sigma2 * gamma / (2 * k * a) * math.Pow(1+gamma/k, 1+k/gamma))
	return c1 + (2*q+1)/2*c2, c1 - (2*q-1)/2*c2
}

// Quote implements Model. It needs st for σ² (and A, k when 0).
func (m *GLFT) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	if st == nil {
		return dst
	}
	fv, ok := fairOf(s, st)
	if !ok {
		return dst
	}
	a, k := m.p.A, m.p.K
	if a == 0 || k == 0 {
		ea, ek := st.Intensity.Fit()
		if a == 0 {
			a = ea
		}
		if k == 0 {
			k = ek
		}
	}
	x := Logit(fv)
	db, da := GLFTDistances(inventory(s, m.p.InventoryUnit), m.p.Gamma, st.Vol.Variance(), k, a)
	// The quotes are symmetric around x + (δa − δb)/2 = x − q·c2, GLFT's
	// reservation price.
	return m.p.Ladder.emit(dst, s, x+(da-db)/2, x-db, x+da)
}

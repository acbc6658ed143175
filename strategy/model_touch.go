package strategy

import (
	"fmt"
	"math"
)

// TouchParams configure the touch model.
type TouchParams struct {
	// Size is the shares of each side.
	Size float64
	// SkewShares is the net position (YES − NO shares) that moves the side
	// that would add to it one tick further from the touch; 0 takes 2 ×
	// Size.
	SkewShares float64
	// MaxSkewTicks bounds that move (0: 5 ticks).
	MaxSkewTicks int
	AllowSell    bool // express a side as a SELL when the inventory covers it
}

// Validate reports the first invalid field by name.
func (p TouchParams) Validate() error {
	switch {
	case !(p.Size > 0) || p.Size > 1e9:
		return fmt.Errorf("strategy: touch: Size %v must be positive", p.Size)
	case p.SkewShares < 0 || math.IsNaN(p.SkewShares) || math.IsInf(p.SkewShares, 0):
		return fmt.Errorf("strategy: touch: SkewShares %v must be >= 0", p.SkewShares)
	case p.MaxSkewTicks < 0 || p.MaxSkewTicks > 1000:
		return fmt.Errorf("strategy: touch: MaxSkewTicks %d outside [0, 1000]", p.MaxSkewTicks)
	}
	return nil
}

// Touch quotes where the flow is: one tick inside the best bid and ask of
// others (joining the touch when the spread is two ticks or less), as the
// naive benchmark does, but with an inventory skew: the side that would
// add to the net position steps back one tick per SkewShares of it, up to
// MaxSkewTicks. It has no fair value of its own; the daemon's rules
// against adverse selection (strategy.adverse) and for liquidity rewards
// wrap it like any model, and are what defends it when the book is stale.
type Touch struct{ p TouchParams }

// NewTouch validates p and returns the model.
func NewTouch(p TouchParams) (*Touch, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.SkewShares == 0 {
		p.SkewShares = 2 * p.Size
	}
	if p.MaxSkewTicks == 0 {
		p.MaxSkewTicks = 5
	}
	return &Touch{p: p}, nil
}

// Quote implements Model.
func (m *Touch) Quote(dst []Desired, s *Snapshot, _ *MarketState) []Desired {
	b, a, tick, ok := insideTouch(s)
	if !ok {
		return dst
	}
	bs, as := TouchSkew(s.NetYes(), m.p.SkewShares, m.p.MaxSkewTicks)
	return quoteBidAsk(dst, s, m.p.AllowSell, b-float64(bs)*tick, a+float64(as)*tick, tick, m.p.Size)
}

// TouchSkew is how many ticks each side steps back from the touch for the
// net position net (YES − NO shares): the bid when long, the ask when
// short, one tick per unit shares, at most maxTicks.
func TouchSkew(net, unit float64, maxTicks int) (bidTicks, askTicks int) {
	if !(unit > 0) || math.IsNaN(net) {
		return 0, 0
	}
	k := int(math.Min(math.Floor(math.Abs(net)/unit), float64(maxTicks)))
	if net > 0 {
		return k, 0
	}
	return 0, k
}

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
	bid, ask, ok := s.yesTouch()
	tick := s.Tick.InexactFloat64()
	if !ok || !(tick > 0) {
		return dst
	}
	b, a := bid+tick, ask-tick
	if a-b < tick/2 { // two ticks or less: join the touch
		b, a = bid, ask
	}
	bs, as := TouchSkew(s.NetYes(), m.p.SkewShares, m.p.MaxSkewTicks)
	b -= float64(bs) * tick
	a += float64(as) * tick
	eps := tick / 1000 // the planner floors bids and ceils asks to the grid
	q := newQuoter(s, m.p.AllowSell)
	if b+eps > 0 && b < 1 {
		dst = q.bid(dst, b+eps, m.p.Size, 0)
	}
	if a-eps < 1 && a > 0 {
		dst = q.ask(dst, a-eps, m.p.Size, 0)
	}
	return dst
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

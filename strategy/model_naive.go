package strategy

import "fmt"

// NaiveParams configure the naive model: one level of Size shares a side.
type NaiveParams struct {
	Size      float64
	AllowSell bool // express a side as a SELL when the inventory covers it
}

// Naive is the benchmark quoter of the scoreboard's calibration: a bid one
// tick above the best bid of others and an ask one tick below their best
// ask (joining the touch when the spread is two ticks or less), Size a
// side, with no view of fair value, no inventory skew and no
// adverse-selection rule of its own. It is what a market that fights back
// must beat: a quoter that earns the spread and nothing else.
type Naive struct{ p NaiveParams }

// NewNaive validates p and returns the model.
func NewNaive(p NaiveParams) (*Naive, error) {
	if !(p.Size > 0) || p.Size > 1e9 {
		return nil, fmt.Errorf("strategy: naive: Size %v must be positive", p.Size)
	}
	return &Naive{p: p}, nil
}

// Quote implements Model.
func (n *Naive) Quote(dst []Desired, s *Snapshot, _ *MarketState) []Desired {
	b, a, tick, ok := insideTouch(s)
	if !ok {
		return dst
	}
	return quoteBidAsk(dst, s, n.p.AllowSell, b, a, tick, n.p.Size)
}

// insideTouch is where the naive and touch models quote before any skew,
// in YES space: one tick above the best bid of others and one below their
// best ask, or the touch itself when it is two ticks wide or less. ok is
// false without a two-sided book of others or a tick.
func insideTouch(s *Snapshot) (bid, ask, tick float64, ok bool) {
	bid, ask, ok = s.yesTouch()
	tick = s.Tick.InexactFloat64()
	if !ok || !(tick > 0) {
		return 0, 0, 0, false
	}
	b, a := bid+tick, ask-tick
	if a-b < tick/2 { // two ticks or less: join the touch
		b, a = bid, ask
	}
	return b, a, tick, true
}

// quoteBidAsk appends one level of size shares: a YES-space bid at b and
// an ask at a, each only when its price lies inside (0, 1).
func quoteBidAsk(dst []Desired, s *Snapshot, allowSell bool, b, a, tick, size float64) []Desired {
	eps := tick / 1000 // the planner floors bids and ceils asks to the grid
	q := newQuoter(s, allowSell)
	if b+eps > 0 && b < 1 {
		dst = q.bid(dst, b+eps, size, 0)
	}
	if a-eps < 1 && a > 0 {
		dst = q.ask(dst, a-eps, size, 0)
	}
	return dst
}

// yesTouch is the best bid and ask of others in YES space: the YES book's
// with the NO book's complement (1 − NO ask is a YES bid), our own orders
// taken out. ok is false unless both sides exist.
func (s *Snapshot) yesTouch() (bid, ask float64, ok bool) {
	y, n := s.TopExOwn(Yes), s.TopExOwn(No)
	bid, hasBid := y.Bid, y.HasBid
	if n.HasAsk && (!hasBid || 1-n.Ask > bid) {
		bid, hasBid = 1-n.Ask, true
	}
	ask, hasAsk := y.Ask, y.HasAsk
	if n.HasBid && (!hasAsk || 1-n.Bid < ask) {
		ask, hasAsk = 1-n.Bid, true
	}
	return bid, ask, hasBid && hasAsk && bid < ask
}

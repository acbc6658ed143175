package strategy

import "math"

// level0 turns a level-0 quote given in logit space (bidX < centerX < askX,
// centerX the reservation price) into YES-space prices a maker can rest:
//
//  1. the width is bounded in price around sigmoid(centerX), not around the
//     middle of the two prices: when the logit spread is wide, that middle
//     drifts toward 0.5 whatever the fair value (at a fair value of 0.2 a
//     spread of 20 logit units has its middle at 0.5), and a pair clamped
//     around it bids far above the fair value;
//  2. the width is at least one tick, so the bid rounded down stays below
//     the ask rounded up (a YES bid plus a NO bid is below 1);
//  3. neither side crosses the others' best opposite price (both books, in
//     YES space, our own orders taken out): on the grid (bids rounded down,
//     asks up) the bid stays at least a tick below the best ask and the ask
//     a tick above the best bid. A quote through the
//     book would take liquidity (or, moved by the planner to just inside the
//     opposite best, pay most of the book's spread as a maker).
//
// Step 3 only widens the pair, so bid < ask holds throughout. ok is false
// when the inputs are not numbers.
func (l Ladder) level0(s *Snapshot, centerX, bidX, askX float64) (bid, ask float64, ok bool) {
	if math.IsNaN(centerX) || math.IsNaN(bidX) || math.IsNaN(askX) {
		return 0, 0, false
	}
	c := Sigmoid(min(max(centerX, bidX), askX))
	bid, ask = Sigmoid(bidX), Sigmoid(askX)
	tick := s.Tick.InexactFloat64()
	lo := max(l.MinSpread, tick)
	if l.MaxSpread > 0 && ask-bid > l.MaxSpread {
		bid, ask = max(bid, c-l.MaxSpread/2), min(ask, c+l.MaxSpread/2)
	}
	if ask-bid < lo {
		bid, ask = min(bid, c-lo/2), max(ask, c+lo/2)
	}
	bestBid, bestAsk, hasBid, hasAsk := s.bestYes()
	// Within half a tick of the opposite best, the grid would round onto
	// it: such a side goes a whole tick inside.
	if hasAsk && bid > bestAsk-tick/2 {
		bid = bestAsk - tick
	}
	if hasBid && ask < bestBid+tick/2 {
		ask = bestBid + tick
	}
	return bid, ask, true
}

// bestYes returns the others' best bid and ask in YES space over both books
// (a NO ask at p is a YES bid at 1−p, a NO bid a YES ask), our own orders
// taken out.
func (s *Snapshot) bestYes() (bid, ask float64, hasBid, hasAsk bool) {
	y, n := s.TopExOwn(Yes), s.TopExOwn(No)
	bid, hasBid = y.Bid, y.HasBid
	if n.HasAsk && (!hasBid || 1-n.Ask > bid) {
		bid, hasBid = 1-n.Ask, true
	}
	ask, hasAsk = y.Ask, y.HasAsk
	if n.HasBid && (!hasAsk || 1-n.Bid < ask) {
		ask, hasAsk = 1-n.Bid, true
	}
	return bid, ask, hasBid, hasAsk
}

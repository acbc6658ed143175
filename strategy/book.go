package strategy

import (
	"github.com/mmbot/mmbot/exchange"
)

// Top is the best level on each side of one token's book, in float64 (for
// models, never for orders).
type Top struct {
	Bid, BidSize   float64
	Ask, AskSize   float64
	HasBid, HasAsk bool
}

// Mid returns (bid+ask)/2 when both sides exist.
func (t Top) Mid() (float64, bool) {
	if !t.HasBid || !t.HasAsk {
		return 0, false
	}
	return (t.Bid + t.Ask) / 2, true
}

// Microprice returns the size-weighted mid, bid·askSize + ask·bidSize over
// the total size, which leans toward the side with less size (the side more
// likely to be taken next). Without size on either side it is the mid.
func (t Top) Microprice() (float64, bool) {
	if !t.HasBid || !t.HasAsk {
		return 0, false
	}
	if w := t.BidSize + t.AskSize; w > 0 {
		return (t.Bid*t.AskSize + t.Ask*t.BidSize) / w, true
	}
	return (t.Bid + t.Ask) / 2, true
}

// Spread returns ask − bid when both sides exist.
func (t Top) Spread() (float64, bool) {
	if !t.HasBid || !t.HasAsk {
		return 0, false
	}
	return t.Ask - t.Bid, true
}

// Top returns the best levels of outcome o's book as published.
func (s *Snapshot) Top(o Outcome) Top {
	var t Top
	if !o.Valid() {
		return t
	}
	b := &s.Tokens[o]
	if len(b.Bids) > 0 {
		t.Bid, t.BidSize, t.HasBid = b.Bids[0].Price.InexactFloat64(), b.Bids[0].Size.InexactFloat64(), true
	}
	if len(b.Asks) > 0 {
		t.Ask, t.AskSize, t.HasAsk = b.Asks[0].Price.InexactFloat64(), b.Asks[0].Size.InexactFloat64(), true
	}
	return t
}

// TopExOwn returns the best levels of outcome o's book with our own open
// orders taken out: a level whose whole size is ours is skipped. Fair value
// and the planner's no-cross rule use it, so our quotes neither chase
// themselves nor block their own replacements.
func (s *Snapshot) TopExOwn(o Outcome) Top {
	var t Top
	if !o.Valid() {
		return t
	}
	b := &s.Tokens[o]
	t.Bid, t.BidSize, t.HasBid = s.bestOthers(o, exchange.Buy, b.Bids)
	t.Ask, t.AskSize, t.HasAsk = s.bestOthers(o, exchange.Sell, b.Asks)
	return t
}

// sizeEps is the share size below which a level counts as empty.
const sizeEps = 1e-9

func (s *Snapshot) bestOthers(o Outcome, side exchange.Side, levels []exchange.PriceLevel) (price, size float64, ok bool) {
	for i := range levels {
		p := levels[i].Price.InexactFloat64()
		if sz := levels[i].Size.InexactFloat64() - s.ownAt(o, side, p); sz > sizeEps {
			return p, sz, true
		}
	}
	return 0, 0, false
}

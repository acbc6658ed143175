package importer

import (
	"fmt"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// liveBook is the importer's copy of one token's book, kept so that
// price_change deltas can be turned into full snapshots.
type liveBook struct {
	market string
	bids   []exchange.PriceLevel // best (highest) first
	asks   []exchange.PriceLevel // best (lowest) first
}

// levelsFromWS converts message levels into a side sorted best first,
// dropping empty levels. desc is true for bids. Two levels at one price are
// an error.
func levelsFromWS(in []wsLevel, desc bool) ([]exchange.PriceLevel, error) {
	out := make([]exchange.PriceLevel, 0, len(in))
	for i, l := range in {
		if !l.Price.Set || !l.Size.Set {
			return nil, fmt.Errorf("level %d: missing price or size", i)
		}
		if !l.Price.IsPositive() || l.Size.IsNegative() {
			return nil, fmt.Errorf("level %d: price %s size %s", i, l.Price.Decimal, l.Size.Decimal)
		}
		if l.Size.IsZero() {
			continue
		}
		out = append(out, exchange.PriceLevel{Price: l.Price.Decimal, Size: l.Size.Decimal})
	}
	slices.SortStableFunc(out, func(a, b exchange.PriceLevel) int {
		if desc {
			return b.Price.Cmp(a.Price)
		}
		return a.Price.Cmp(b.Price)
	})
	for i := 1; i < len(out); i++ {
		if out[i].Price.Equal(out[i-1].Price) {
			return nil, fmt.Errorf("two levels at price %s", out[i].Price)
		}
	}
	return out, nil
}

// setLevel sets the aggregate size at price on one side (sorted best first;
// desc for bids); a zero size removes the level.
func setLevel(side []exchange.PriceLevel, price, size decimal.Decimal, desc bool) []exchange.PriceLevel {
	i, found := slices.BinarySearchFunc(side, price, func(l exchange.PriceLevel, p decimal.Decimal) int {
		if desc {
			return p.Cmp(l.Price)
		}
		return l.Price.Cmp(p)
	})
	switch {
	case found && size.IsZero():
		return slices.Delete(side, i, i+1)
	case found:
		side[i].Size = size
		return side
	case size.IsZero():
		return side
	default:
		return slices.Insert(side, i, exchange.PriceLevel{Price: price, Size: size})
	}
}

// apply applies one price_change entry.
func (b *liveBook) apply(c wsChange) error {
	if !c.Price.Set || !c.Size.Set || !c.Price.IsPositive() || c.Size.IsNegative() {
		return fmt.Errorf("price change: price %q size %q", c.Price.String(), c.Size.String())
	}
	switch exchange.Side(c.Side) {
	case exchange.Buy:
		b.bids = setLevel(b.bids, c.Price.Decimal, c.Size.Decimal, true)
	case exchange.Sell:
		b.asks = setLevel(b.asks, c.Price.Decimal, c.Size.Decimal, false)
	default:
		return fmt.Errorf("price change: side %q", c.Side)
	}
	return nil
}

// crossed reports whether the best bid is at or above the best ask (a book
// the exchange never shows at rest: one match sent as several price_change
// messages leaves the importer's copy crossed between them).
func (b *liveBook) crossed() bool {
	return len(b.bids) > 0 && len(b.asks) > 0 && b.bids[0].Price.GreaterThanOrEqual(b.asks[0].Price)
}

// dropBeyond removes the bids above bid and the asks below ask (the levels
// a message's best_bid and best_ask say the exchange no longer has), and
// returns how many it removed.
func (b *liveBook) dropBeyond(bid, ask decimal.Decimal) int {
	n := 0
	for len(b.bids) > 0 && b.bids[0].Price.GreaterThan(bid) {
		b.bids = b.bids[1:]
		n++
	}
	for len(b.asks) > 0 && b.asks[0].Price.LessThan(ask) {
		b.asks = b.asks[1:]
		n++
	}
	return n
}

// dropStale removes the levels of the side opposite to fresh (the side
// the message changed last) that the fresh side's best price crosses, and
// returns how many it removed.
func (b *liveBook) dropStale(fresh exchange.Side) int {
	n := 0
	if fresh == exchange.Buy {
		for len(b.bids) > 0 && len(b.asks) > 0 && b.asks[0].Price.LessThanOrEqual(b.bids[0].Price) {
			b.asks = b.asks[1:]
			n++
		}
		return n
	}
	for len(b.bids) > 0 && len(b.asks) > 0 && b.bids[0].Price.GreaterThanOrEqual(b.asks[0].Price) {
		b.bids = b.bids[1:]
		n++
	}
	return n
}

// mirror returns the complement's side of levels: each price p becomes
// 1 − p with the same size. A YES book's asks mirrored are the NO book's
// bids (best first stays best first) and its bids mirrored the NO asks.
func mirror(levels []exchange.PriceLevel) ([]exchange.PriceLevel, error) {
	one := decimal.NewFromInt(1)
	out := make([]exchange.PriceLevel, len(levels))
	for i, l := range levels {
		if !l.Price.LessThan(one) {
			return nil, fmt.Errorf("price %s: a binary outcome's price is below 1, so it has no complement", l.Price)
		}
		out[i] = exchange.PriceLevel{Price: one.Sub(l.Price), Size: l.Size}
	}
	return out, nil
}

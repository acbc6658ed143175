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

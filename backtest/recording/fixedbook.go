package recording

import (
	"fmt"

	"github.com/mmbot/mmbot/exchange"
)

// Level is one price level in Fixed units.
type Level struct {
	Price, Size exchange.Fixed
}

// FixedBook is a token's book in Fixed units, each side best first, as the
// Matcher consumes it. Reuse one FixedBook across events: SetFrom keeps its
// slices' capacity, so converting a book does not allocate in the steady
// state.
type FixedBook struct {
	Bids []Level // best (highest) first
	Asks []Level // best (lowest) first
}

// SetFrom fills b from a recorded book. It fails when a level is not exact
// in Fixed units or a side is not sorted best first. A book decoded by a
// Reader (validated, with its Fixed levels kept) is copied, not converted.
func (b *FixedBook) SetFrom(src *Book) error {
	if src.fx != nil {
		b.CopyFrom(src.fx)
		return nil
	}
	var err error
	if b.Bids, err = fixedLevels(b.Bids[:0], src.Bids, true); err != nil {
		return fmt.Errorf("book %s bids: %w", src.TokenID, err)
	}
	if b.Asks, err = fixedLevels(b.Asks[:0], src.Asks, false); err != nil {
		return fmt.Errorf("book %s asks: %w", src.TokenID, err)
	}
	return nil
}

func fixedLevels(dst []Level, src []exchange.PriceLevel, desc bool) ([]Level, error) {
	for i := range src {
		p, err := exchange.FixedFromDecimal(src[i].Price)
		if err != nil {
			return dst, err
		}
		s, err := exchange.FixedFromDecimal(src[i].Size)
		if err != nil {
			return dst, err
		}
		if n := len(dst); n > 0 && (desc && dst[n-1].Price <= p || !desc && dst[n-1].Price >= p) {
			return dst, fmt.Errorf("level %d: price %s out of order", i, p)
		}
		dst = append(dst, Level{Price: p, Size: s})
	}
	return dst, nil
}

// CopyFrom makes b a copy of src, reusing b's capacity.
func (b *FixedBook) CopyFrom(src *FixedBook) {
	b.Bids = append(b.Bids[:0], src.Bids...)
	b.Asks = append(b.Asks[:0], src.Asks...)
}

// BestBid returns the best bid, if any.
func (b *FixedBook) BestBid() (Level, bool) {
	if len(b.Bids) == 0 {
		return Level{}, false
	}
	return b.Bids[0], true
}

// BestAsk returns the best ask, if any.
func (b *FixedBook) BestAsk() (Level, bool) {
	if len(b.Asks) == 0 {
		return Level{}, false
	}
	return b.Asks[0], true
}

// SizeAt returns the visible size at price on the given side (BUY: bids).
func (b *FixedBook) SizeAt(side exchange.Side, price exchange.Fixed) exchange.Fixed {
	if side == exchange.Buy {
		for _, l := range b.Bids {
			if l.Price == price {
				return l.Size
			}
			if l.Price < price {
				break
			}
		}
		return 0
	}
	for _, l := range b.Asks {
		if l.Price == price {
			return l.Size
		}
		if l.Price > price {
			break
		}
	}
	return 0
}

// FixedLevels returns the book's levels in Fixed units as a Reader of a
// version 2 recording decoded them (shared, read-only), or nil for a book
// that does not carry them (built by hand, or read from version 1).
func (b *Book) FixedLevels() *FixedBook { return b.fx }

// LevelConverter turns Fixed levels into decimal ones, sharing the
// decimals of values it has seen (a bounded cache, as a Reader's), so
// that converting a book's levels costs the slice and rarely a decimal.
// The zero value is ready; it is not safe for concurrent use.
type LevelConverter struct {
	cache decimalCache
}

// Append appends src's levels to dst as decimals, each equal to
// Fixed.Decimal of its value (and so to what a Reader decodes).
func (c *LevelConverter) Append(dst []exchange.PriceLevel, src []Level) []exchange.PriceLevel {
	for _, l := range src {
		dst = append(dst, exchange.PriceLevel{Price: c.cache.get(l.Price), Size: c.cache.get(l.Size)})
	}
	return dst
}

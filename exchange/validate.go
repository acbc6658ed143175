package exchange

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
)

// This file checks what the exchange says about a market before the bot
// acts on it: the terms of a market (tick, minimum size) and every book. A
// book or market that breaks a rule is refused whole, with a reason that
// names the rule (a stable metric label) and a detail that names the value.

// ErrInvalidData is matched by every *ValidationError.
var ErrInvalidData = errors.New("exchange: invalid data from the exchange")

// Reasons of a ValidationError: stable snake_case names, used as metric
// labels.
const (
	InvalidTick     = "tick_size" // not one of TickSizes
	InvalidMinSize  = "min_size"  // not in (0, MaxMinOrderSize]
	InvalidPrice    = "price"     // outside [0.0001, 0.9999] or off the 0.0001 grid
	InvalidSize     = "size"      // negative, above MaxLevelSize, or more than 6 decimals
	InvalidUnsorted = "unsorted"  // a side's prices neither strictly rise nor strictly fall
	InvalidCrossed  = "crossed"   // best bid at or above best ask
)

var (
	// TickSizes are the exchange's tick sizes (docs/protocol.md, Amounts).
	TickSizes = [...]decimal.Decimal{
		decimal.New(1, -1), decimal.New(1, -2), decimal.New(1, -3), decimal.New(1, -4),
	}
	// MinTick is the finest of them: every price lies on its grid.
	MinTick = decimal.New(1, -4)
	// MaxLevelSize bounds the size of one book level, in shares: far above
	// any honest level (a billion shares is up to a billion in collateral).
	MaxLevelSize = decimal.NewFromInt(1_000_000_000)
	// MaxMinOrderSize bounds a market's minimum order size, in shares.
	MaxMinOrderSize = decimal.NewFromInt(1_000_000)

	maxPrice = decimal.NewFromInt(1).Sub(MinTick)
)

// ValidationError is a book or a market's terms that break a rule: the
// client refuses it whole.
type ValidationError struct {
	// Subject names what was refused: "book of token …" or "market …".
	Subject string
	Reason  string // one of the Invalid… reasons
	Detail  string // the rule and the offending value
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("exchange: %s refused (%s): %s", e.Subject, e.Reason, e.Detail)
}

// Is matches ErrInvalidData.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidData }

// tame reports whether d can be compared and printed cheaply. A decimal
// decodes from "1e999999999" in no time, but comparing or printing it
// would build a number of a billion digits: such a value is refused
// before any arithmetic. Every honest amount has a few dozen digits.
func tame(d decimal.Decimal) bool {
	e := d.Exponent()
	return e >= -maxExponent && e <= maxExponent && d.NumDigits() <= maxDigits
}

const (
	maxExponent = 40
	maxDigits   = 40
)

// ValidTick reports whether t is one of the exchange's tick sizes.
func ValidTick(t decimal.Decimal) bool {
	if !tame(t) {
		return false
	}
	// In base units (TickSizes' four, as TestValidTickIsTickSizes holds):
	// a value that is not a whole number of them is none of the ticks.
	f, err := FixedFromDecimal(t)
	if err != nil {
		return false
	}
	switch f {
	case FixedScale / 10, FixedScale / 100, FixedScale / 1000, FixedScale / 10000:
		return true
	}
	return false
}

// quoteValue prints a value for a detail, cut to a readable length (a size
// of 1e300 has 301 digits).
func quoteValue(d decimal.Decimal) string {
	if !tame(d) {
		c := d.Coefficient().String()
		if len(c) > 12 {
			c = c[:12] + fmt.Sprintf("…(%d digits)", len(c))
		}
		return fmt.Sprintf("%q", fmt.Sprintf("%se%d", c, d.Exponent()))
	}
	s := d.String()
	if len(s) > 24 {
		s = s[:12] + "…" + s[len(s)-4:] + fmt.Sprintf(" (%d digits)", len(s))
	}
	return fmt.Sprintf("%q", s)
}

// ValidateTerms checks a market's trading terms: the tick is one of
// TickSizes and the minimum order size is in (0, MaxMinOrderSize]. subject
// names the market in the error.
func ValidateTerms(subject string, tick, minSize decimal.Decimal) error {
	return validateTerms(func() string { return subject }, "tick size", "minimum order size", tick, minSize)
}

// validateTerms is ValidateTerms with the wire names of the two fields: a
// zero value is named as absent (older books carry no tick_size and no
// min_order_size, and an absent decimal decodes as 0).
//
// subject is called only for an error (a book's is built from its token).
func validateTerms(subject func() string, tickField, minField string, tick, minSize decimal.Decimal) error {
	if tick.IsZero() {
		return &ValidationError{Subject: subject(), Reason: InvalidTick, Detail: tickField + " is absent (or 0)"}
	}
	if !ValidTick(tick) {
		return &ValidationError{Subject: subject(), Reason: InvalidTick,
			Detail: fmt.Sprintf("tick size %s is not one of 0.1, 0.01, 0.001, 0.0001", quoteValue(tick))}
	}
	if minSize.IsZero() {
		return &ValidationError{Subject: subject(), Reason: InvalidMinSize, Detail: minField + " is absent (or 0)"}
	}
	if !tame(minSize) || !minSize.IsPositive() || minSize.GreaterThan(MaxMinOrderSize) {
		return &ValidationError{Subject: subject(), Reason: InvalidMinSize,
			Detail: fmt.Sprintf("minimum order size %s is not in (0, %s]", quoteValue(minSize), MaxMinOrderSize)}
	}
	return nil
}

// ValidateMarket checks the terms of a market of GET /markets.
func ValidateMarket(m *Market) error {
	return validateTerms(func() string { return "market " + m.ConditionID }, "minimum_tick_size", "minimum_order_size", m.MinimumTickSize.Decimal, m.MinimumOrderSize.Decimal)
}

// ValidateBook checks a book of POST /books, in the order the levels
// arrived (best first or best last): its terms (ValidateTerms), every
// level's price in [0.0001, 0.9999] on the 0.0001 grid (the finest tick:
// a level on an older, finer grid than the book's tick is honest) and size
// in [0, MaxLevelSize] with at most 6 decimals, each side's prices strictly
// rising or strictly falling, and the best bid below the best ask.
func ValidateBook(b *OrderBook) error {
	subject := func() string { return "book of token " + b.AssetID }
	if err := validateTerms(subject, "tick_size", "min_order_size", b.TickSize, b.MinOrderSize); err != nil {
		return err
	}
	bad := func(reason, format string, a ...any) error {
		return &ValidationError{Subject: subject(), Reason: reason, Detail: fmt.Sprintf(format, a...)}
	}
	for _, side := range []struct {
		name   string
		levels []PriceLevel
	}{{"bids", b.Bids}, {"asks", b.Asks}} {
		dir := 0 // +1 rising, −1 falling, 0 not known yet
		var prev fixedPrice
		for i, l := range side.levels {
			fp, inRange, onGrid := checkPrice(l.Price)
			switch {
			case !inRange:
				return bad(InvalidPrice, "%s[%d].price %s is outside [0.0001, 0.9999]", side.name, i, quoteValue(l.Price))
			case !onGrid:
				return bad(InvalidPrice, "%s[%d].price %s is off the 0.0001 grid", side.name, i, quoteValue(l.Price))
			}
			if err := checkSize(l.Size); err != "" {
				return bad(InvalidSize, "%s[%d].size %s %s", side.name, i, quoteValue(l.Size), err)
			}
			if i > 0 {
				c := fp.cmp(prev)
				if c == 0 || (dir != 0 && c != dir) {
					return bad(InvalidUnsorted, "%s[%d].price %s after %s: the levels are not sorted", side.name, i,
						quoteValue(l.Price), quoteValue(side.levels[i-1].Price))
				}
				dir = c
			}
			prev = fp
		}
	}
	if bid, ok := bestLevel(b.Bids, true); ok {
		if ask, ok := bestLevel(b.Asks, false); ok && bid.cmp(ask) >= 0 {
			return bad(InvalidCrossed, "best bid %s is not below best ask %s", quoteValue(bid.d), quoteValue(ask.d))
		}
	}
	return nil
}

// fixedPrice is a checked level's price, with its base units when it has
// at most six decimals (ok), so that comparisons need no decimal
// arithmetic.
type fixedPrice struct {
	d  decimal.Decimal
	f  Fixed
	ok bool
}

func (a fixedPrice) cmp(b fixedPrice) int {
	if a.ok && b.ok {
		return cmp.Compare(a.f, b.f)
	}
	return a.d.Cmp(b.d)
}

// maxLevelUnits is MaxLevelSize in base units.
const maxLevelUnits = 1_000_000_000 * FixedScale

// checkSize returns why a level's size is invalid (the end of the error's
// detail), or "" when it is not: negative, untame or above MaxLevelSize,
// more than six decimals. A size of at most six decimals is checked in
// base units.
func checkSize(sz decimal.Decimal) string {
	if f, err := FixedFromDecimal(sz); err == nil && tame(sz) {
		switch {
		case f < 0:
			return "is negative"
		case f > maxLevelUnits:
			return fmt.Sprintf("is above %s shares", MaxLevelSize)
		}
		return ""
	}
	switch {
	case sz.IsNegative():
		return "is negative"
	case !tame(sz) || sz.GreaterThan(MaxLevelSize):
		return fmt.Sprintf("is above %s shares", MaxLevelSize)
	case sz.Exponent() < -FixedDecimals && !sz.Equal(sz.Truncate(FixedDecimals)):
		return fmt.Sprintf("has more than %d decimals", FixedDecimals)
	}
	return ""
}

// Base units of MinTick and maxPrice.
const (
	minTickUnits  = FixedScale / 10_000
	maxPriceUnits = FixedScale - minTickUnits
)

// checkPrice reports whether a level's price is tame and in [MinTick,
// maxPrice], and if so whether it is on the MinTick grid. A price of at most six
// decimals (every price the exchange sends) is checked in base units, with
// no allocation; any other in decimals.
func checkPrice(p decimal.Decimal) (fp fixedPrice, inRange, onGrid bool) {
	fp.d = p
	if !tame(p) {
		return fp, false, false
	}
	if f, err := FixedFromDecimal(p); err == nil {
		fp.f, fp.ok = f, true
		in := f >= minTickUnits && f <= maxPriceUnits
		return fp, in, in && f%minTickUnits == 0
	}
	if p.LessThan(MinTick) || p.GreaterThan(maxPrice) {
		return fp, false, false
	}
	return fp, true, p.Mod(MinTick).IsZero()
}

// bestLevel returns the highest (bids) or lowest (asks) price of a side
// whose prices passed checkPrice.
func bestLevel(levels []PriceLevel, high bool) (fixedPrice, bool) {
	if len(levels) == 0 {
		return fixedPrice{}, false
	}
	best, _, _ := checkPrice(levels[0].Price)
	for _, l := range levels[1:] {
		p, _, _ := checkPrice(l.Price)
		if c := p.cmp(best); (high && c > 0) || (!high && c < 0) {
			best = p
		}
	}
	return best, true
}

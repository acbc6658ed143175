package signer

import (
	"fmt"
	"math"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// Decimals is the number of decimals of collateral and shares: amounts on the
// wire are integers in units of 10^-Decimals, exchange.Fixed values.
const Decimals = exchange.FixedDecimals

// MaxAmount is the largest makerAmount or takerAmount Amounts produces
// (exchange.MaxFixed), so that every amount fits an int64 as well as a
// uint256.
const MaxAmount = math.MaxInt64

// Precision limits. A price has at most maxTickDecimals decimals and a size
// at most SizeDecimals, so price × size has at most 6 and is exact in base
// units.
const (
	SizeDecimals    = 2
	maxTickDecimals = Decimals - SizeDecimals
)

// decimalsOf returns the number of decimals that d needs, up to max, and
// false if it needs more.
func decimalsOf(d decimal.Decimal, max int32) (int32, bool) {
	for k := int32(0); k <= max; k++ {
		if d.Shift(k).IsInteger() {
			return k, true
		}
	}
	return 0, false
}

// sane reports whether d is small enough in exponent and digits for exact
// arithmetic to be cheap. Decimals such as 1e-1000000000 would otherwise make
// comparisons allocate gigabytes; no price, size or tick comes near the
// bounds.
func sane(d decimal.Decimal) bool {
	e := d.Exponent()
	return e >= -30 && e <= 30 && d.Coefficient().BitLen() <= 128
}

// ValidateTick checks that tick is a usable tick size: positive, at most 0.5
// (so that [tick, 1-tick] is not empty) and with at most 4 decimals (0.1,
// 0.01, 0.001 and 0.0001 are the market tick sizes).
func ValidateTick(tick decimal.Decimal) error {
	if !sane(tick) {
		return fmt.Errorf("%w: too many digits or too large an exponent", ErrInvalidTick)
	}
	if !tick.IsPositive() || tick.GreaterThan(decimal.New(5, -1)) {
		return fmt.Errorf("%w: %s must be in (0, 0.5]", ErrInvalidTick, tick)
	}
	if _, ok := decimalsOf(tick, maxTickDecimals); !ok {
		return fmt.Errorf("%w: %s is finer than 0.0001", ErrInvalidTick, tick)
	}
	return nil
}

// ValidatePrice checks that price lies on the grid of tick and within
// [tick, 1-tick].
func ValidatePrice(price, tick decimal.Decimal) error {
	if err := ValidateTick(tick); err != nil {
		return err
	}
	if !sane(price) {
		return fmt.Errorf("%w: too many digits or too large an exponent", ErrPriceOutOfRange)
	}
	if price.LessThan(tick) || price.GreaterThan(decimal.NewFromInt(1).Sub(tick)) {
		return fmt.Errorf("%w: price %s, tick %s", ErrPriceOutOfRange, price, tick)
	}
	// Both are bounded by 1 here, so the quotient is small and exact.
	if !price.Mod(tick).IsZero() {
		return fmt.Errorf("%w: price %s, tick %s", ErrPriceOffTick, price, tick)
	}
	return nil
}

// ValidateSize checks that size is positive, has at most 2 decimals and is at
// least minSize (a zero minSize means no minimum).
func ValidateSize(size, minSize decimal.Decimal) error {
	if !sane(size) || !sane(minSize) {
		return fmt.Errorf("%w: too many digits or too large an exponent", ErrInvalidSize)
	}
	if !size.IsPositive() {
		return fmt.Errorf("%w: %s", ErrInvalidSize, size)
	}
	if _, ok := decimalsOf(size, SizeDecimals); !ok {
		return fmt.Errorf("%w: %s", ErrSizePrecision, size)
	}
	if size.LessThan(minSize) {
		return fmt.Errorf("%w: size %s, minimum %s", ErrSizeTooSmall, size, minSize)
	}
	return nil
}

// Amounts returns the order's makerAmount and takerAmount in base units:
// for BUY the maker gives size × price collateral and takes size shares, for
// SELL the reverse. The result is exact; a price off the grid or out of
// range, a size that is not positive or has more than 2 decimals, and an
// amount above MaxAmount are errors. The market minimum is ValidateSize's.
func Amounts(side exchange.Side, price, size, tick decimal.Decimal) (maker, taker uint64, err error) {
	if !side.Valid() {
		return 0, 0, fmt.Errorf("%w: %q", ErrInvalidSide, string(side))
	}
	if err := ValidatePrice(price, tick); err != nil {
		return 0, 0, err
	}
	if err := ValidateSize(size, decimal.Zero); err != nil {
		return 0, 0, err
	}
	// The base-unit arithmetic is exchange.Fixed's, exact: size has at most
	// 2 decimals (so only its range can fail), price at most 4 within
	// (0,1), and their product at most 6 (so only its range could fail).
	shares, err := exchange.FixedFromDecimal(size)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: size %s", ErrAmountOverflow, size)
	}
	p, err := exchange.FixedFromDecimal(price)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: price %s, tick %s", ErrPriceOutOfRange, price, tick)
	}
	collateral, err := p.Mul(shares, exchange.RoundExact)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: size %s at price %s", ErrAmountOverflow, size, price)
	}
	if side == exchange.Buy {
		return uint64(collateral), uint64(shares), nil
	}
	return uint64(shares), uint64(collateral), nil
}

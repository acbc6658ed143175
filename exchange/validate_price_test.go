package exchange

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// checkPriceDecimal is checkPrice's definition, in decimals only.
func checkPriceDecimal(p decimal.Decimal) (inRange, onGrid bool) {
	if !tame(p) || p.LessThan(MinTick) || p.GreaterThan(maxPrice) {
		return false, false
	}
	return true, p.Mod(MinTick).IsZero()
}

// TestCheckPriceIsTheDecimalCheck checks that the base-unit path of
// checkPrice answers what the decimal comparison and modulo do: on the
// edges of the range and the grid, with many decimals, in odd exponents
// (0.5 as 5e-1 and as 50000e-5), negatives, huge and untame values, and on
// random prices of 0 to 9 decimals.
func TestCheckPriceIsTheDecimalCheck(t *testing.T) {
	cases := []decimal.Decimal{
		decimal.Zero, MinTick, maxPrice, decimal.NewFromInt(1), decimal.New(-1, -4),
		decimal.New(5, -1), decimal.New(50000, -5), decimal.New(5000000000, -10),
		decimal.New(99, -6), decimal.New(101, -6), decimal.New(100, -6), decimal.New(999900, -6), decimal.New(999901, -6),
		decimal.New(1, -7), decimal.New(12345, -9), decimal.New(5, 30), decimal.New(5, -45), decimal.New(1, 41),
		decimal.RequireFromString("0.50000000000000000000000000000000000001"),
		decimal.RequireFromString("0.5000000000000000000000"),
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		exp := -int32(rng.IntN(10))
		cases = append(cases, decimal.New(rng.Int64N(2_000_000_000)-100_000, exp))
	}
	for _, p := range cases {
		_, gr, gg := checkPrice(p)
		wr, wg := checkPriceDecimal(p)
		if gr != wr || gg != wg {
			t.Fatalf("checkPrice(%s) = (%v, %v), the decimal check says (%v, %v)", p, gr, gg, wr, wg)
		}
	}
}

// checkSizeDecimal is checkSize's definition, in decimals only.
func checkSizeDecimal(sz decimal.Decimal) string {
	switch {
	case sz.IsNegative():
		return "is negative"
	case !tame(sz) || sz.GreaterThan(MaxLevelSize):
		return "is above 1000000000 shares"
	case sz.Exponent() < -FixedDecimals && !sz.Equal(sz.Truncate(FixedDecimals)):
		return "has more than 6 decimals"
	}
	return ""
}

// TestCheckSizeAndOrderAreTheDecimalChecks holds the base-unit paths of
// checkSize and of the price comparison (fixedPrice.cmp) to the decimal
// definitions, on edge and random values.
func TestCheckSizeAndOrderAreTheDecimalChecks(t *testing.T) {
	sizes := []decimal.Decimal{
		decimal.Zero, decimal.New(-1, -6), MaxLevelSize, MaxLevelSize.Add(decimal.New(1, -6)), decimal.New(1, -7),
		decimal.New(10, -7), decimal.New(5, 41), decimal.New(5, -45), decimal.RequireFromString("1.0000000000000000000000000001"),
		decimal.RequireFromString("999999999.999999"), decimal.RequireFromString("-1000000000000"),
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		sizes = append(sizes, decimal.New(rng.Int64N(4_000_000_000_000_000)-1_000_000, -int32(rng.IntN(12))))
	}
	for _, sz := range sizes {
		if got, want := checkSize(sz), checkSizeDecimal(sz); got != want {
			t.Fatalf("checkSize(%s) = %q, the decimal check says %q", sz, got, want)
		}
	}
	for range 20000 {
		a := decimal.New(rng.Int64N(20_000), -int32(rng.IntN(9)))
		b := decimal.New(rng.Int64N(20_000), -int32(rng.IntN(9)))
		fa, _, _ := checkPrice(a)
		fb, _, _ := checkPrice(b)
		if got, want := fa.cmp(fb), a.Cmp(b); got != want {
			t.Fatalf("cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
	}
}

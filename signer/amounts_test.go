package signer

import (
	"errors"
	"testing"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

type amountCase struct {
	name              string
	side              exchange.Side
	price, size, tick string
	maker, taker      uint64
	err               error
}

// amountCases cover every market tick size and both sides; the expected
// amounts were worked out by hand (price × size × 10^6 and size × 10^6).
var amountCases = []amountCase{
	{"tick 0.1 buy", exchange.Buy, "0.5", "10", "0.1", 5_000_000, 10_000_000, nil},
	{"tick 0.1 sell", exchange.Sell, "0.5", "10", "0.1", 10_000_000, 5_000_000, nil},
	{"tick 0.1 lowest price", exchange.Buy, "0.1", "3.33", "0.1", 333_000, 3_330_000, nil},
	{"tick 0.1 highest price", exchange.Sell, "0.9", "3.33", "0.1", 3_330_000, 2_997_000, nil},
	{"tick 0.01 buy", exchange.Buy, "0.56", "21.04", "0.01", 11_782_400, 21_040_000, nil},
	{"tick 0.01 sell", exchange.Sell, "0.56", "21.04", "0.01", 21_040_000, 11_782_400, nil},
	{"tick 0.01 trailing zeros", exchange.Buy, "0.5600", "21.040", "0.010", 11_782_400, 21_040_000, nil},
	{"tick 0.001 buy", exchange.Buy, "0.123", "7.77", "0.001", 955_710, 7_770_000, nil},
	{"tick 0.001 sell", exchange.Sell, "0.999", "0.01", "0.001", 10_000, 9_990, nil},
	{"tick 0.0001 buy smallest", exchange.Buy, "0.0001", "0.01", "0.0001", 1, 10_000, nil},
	{"tick 0.0001 sell", exchange.Sell, "0.9999", "123456.78", "0.0001", 123_456_780_000, 123_444_434_322, nil},
	{"tick 0.0001 buy", exchange.Buy, "0.4321", "5", "0.0001", 2_160_500, 5_000_000, nil},
	{"custom tick 0.05", exchange.Buy, "0.15", "2", "0.05", 300_000, 2_000_000, nil},
	{"largest size", exchange.Sell, "0.5", "9223372036854.77", "0.1", 9_223_372_036_854_770_000, 4_611_686_018_427_385_000, nil},

	{"off tick 0.1", exchange.Buy, "0.55", "10", "0.1", 0, 0, ErrPriceOffTick},
	{"off tick 0.01", exchange.Sell, "0.565", "10", "0.01", 0, 0, ErrPriceOffTick},
	{"off tick 0.001", exchange.Buy, "0.1234", "10", "0.001", 0, 0, ErrPriceOffTick},
	{"off tick 0.0001", exchange.Buy, "0.12345", "10", "0.0001", 0, 0, ErrPriceOffTick},
	{"off custom tick", exchange.Buy, "0.12", "10", "0.05", 0, 0, ErrPriceOffTick},
	{"below tick", exchange.Buy, "0.05", "10", "0.1", 0, 0, ErrPriceOutOfRange},
	{"above 1-tick", exchange.Sell, "0.995", "10", "0.01", 0, 0, ErrPriceOutOfRange},
	{"price one", exchange.Sell, "1", "10", "0.01", 0, 0, ErrPriceOutOfRange},
	{"price zero", exchange.Buy, "0", "10", "0.01", 0, 0, ErrPriceOutOfRange},
	{"price negative", exchange.Buy, "-0.5", "10", "0.01", 0, 0, ErrPriceOutOfRange},
	{"price absurd exponent", exchange.Buy, "5e-9000", "10", "0.01", 0, 0, ErrPriceOutOfRange},
	{"size 3 decimals", exchange.Buy, "0.5", "1.234", "0.1", 0, 0, ErrSizePrecision},
	{"size zero", exchange.Buy, "0.5", "0", "0.1", 0, 0, ErrInvalidSize},
	{"size negative", exchange.Sell, "0.5", "-1", "0.1", 0, 0, ErrInvalidSize},
	{"size absurd exponent", exchange.Sell, "0.5", "0e-9000", "0.1", 0, 0, ErrInvalidSize},
	{"size overflow", exchange.Buy, "0.5", "9223372036854.78", "0.1", 0, 0, ErrAmountOverflow},
	{"size far too large", exchange.Buy, "0.5", "1e20", "0.1", 0, 0, ErrAmountOverflow},
	{"tick too fine", exchange.Buy, "0.5", "1", "0.00001", 0, 0, ErrInvalidTick},
	{"tick zero", exchange.Buy, "0.5", "1", "0", 0, 0, ErrInvalidTick},
	{"tick above half", exchange.Buy, "0.5", "1", "0.6", 0, 0, ErrInvalidTick},
	{"bad side", exchange.Side("HOLD"), "0.5", "1", "0.1", 0, 0, ErrInvalidSide},
	{"lower-case side", exchange.Side("buy"), "0.5", "1", "0.1", 0, 0, ErrInvalidSide},
}

func dec(t testing.TB, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("decimal %q: %v", s, err)
	}
	return d
}

func TestAmounts(t *testing.T) {
	for _, c := range amountCases {
		t.Run(c.name, func(t *testing.T) {
			maker, taker, err := Amounts(c.side, dec(t, c.price), dec(t, c.size), dec(t, c.tick))
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if maker != c.maker || taker != c.taker {
				t.Fatalf("amounts = %d/%d, want %d/%d", maker, taker, c.maker, c.taker)
			}
		})
	}
}

func TestValidateSize(t *testing.T) {
	cases := []struct {
		size, min string
		err       error
	}{
		{"5", "5", nil},
		{"5.00", "5", nil},
		{"4.99", "5", ErrSizeTooSmall},
		{"0.01", "0", nil},
		{"21.04", "0", nil},
		{"21.045", "0", ErrSizePrecision},
		{"0", "0", ErrInvalidSize},
		{"-3", "0", ErrInvalidSize},
		{"5", "1e-9000", ErrInvalidSize},
	}
	for _, c := range cases {
		err := ValidateSize(dec(t, c.size), dec(t, c.min))
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ValidateSize(%s, %s) = %v, want %v", c.size, c.min, err, c.err)
		}
	}
}

// FuzzAmounts checks that whenever Amounts accepts its input, the amounts
// are exactly price × size and size in base units (computed here with
// arbitrary-precision decimals), and that every rejection is one of the
// documented errors.
func FuzzAmounts(f *testing.F) {
	for _, c := range amountCases {
		f.Add(c.side == exchange.Sell, c.price, c.size, c.tick)
	}
	known := []error{ErrInvalidTick, ErrPriceOffTick, ErrPriceOutOfRange, ErrSizePrecision, ErrInvalidSize, ErrAmountOverflow}
	f.Fuzz(func(t *testing.T, sell bool, ps, ss, ts string) {
		price, err1 := decimal.NewFromString(ps)
		size, err2 := decimal.NewFromString(ss)
		tick, err3 := decimal.NewFromString(ts)
		if err1 != nil || err2 != nil || err3 != nil {
			return
		}
		side := exchange.Buy
		if sell {
			side = exchange.Sell
		}
		maker, taker, err := Amounts(side, price, size, tick)
		if err != nil {
			for _, k := range known {
				if errors.Is(err, k) {
					return
				}
			}
			t.Fatalf("undocumented error %v", err)
		}
		notional := price.Mul(size).Shift(Decimals)
		shares := size.Shift(Decimals)
		if !notional.IsInteger() || !shares.IsInteger() {
			t.Fatalf("accepted %s × %s that is not exact in base units", price, size)
		}
		wantMaker, wantTaker := notional, shares
		if sell {
			wantMaker, wantTaker = shares, notional
		}
		if !decimal.NewFromUint64(maker).Equal(wantMaker) || !decimal.NewFromUint64(taker).Equal(wantTaker) {
			t.Fatalf("%s %s × %s (tick %s): got %d/%d, want %s/%s", side, price, size, tick, maker, taker, wantMaker, wantTaker)
		}
		if maker > MaxAmount || taker > MaxAmount {
			t.Fatalf("amount above MaxAmount: %d/%d", maker, taker)
		}
		if !price.Mod(tick).IsZero() || price.LessThan(tick) || price.GreaterThan(decimal.NewFromInt(1).Sub(tick)) {
			t.Fatalf("accepted price %s off grid or range of tick %s", price, tick)
		}
	})
}

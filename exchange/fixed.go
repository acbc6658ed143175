package exchange

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/shopspring/decimal"
)

// Fixed is an exact decimal with six fractional digits, held as an int64 count
// of millionths: the exchange's base unit for collateral and shares, and fine
// enough for every tick size (0.01, 0.001, 0.0001). The Matcher works in Fixed
// so that its hot path does no big-number arithmetic and no allocation.
type Fixed int64

// FixedScale is the number of Fixed units in 1.
const FixedScale = 1_000_000

// fixedDigits is the number of fractional digits of a Fixed.
const FixedDecimals = 6

// Errors of the Fixed conversions.
var (
	ErrInexact  = errors.New("more than 6 decimal places")
	ErrOverflow = errors.New("out of range")
)

var pow10 = [...]int64{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
	100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000, 1_000_000_000_000,
	10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
	10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000}

// FixedFromDecimal converts d exactly. It fails with ErrInexact when d has
// non-zero digits beyond the sixth decimal place and with ErrOverflow when d
// does not fit. It does not allocate for values whose coefficient fits in 18
// digits.
func FixedFromDecimal(d decimal.Decimal) (Fixed, error) {
	if d.NumDigits() > 18 {
		return fixedFromDecimalSlow(d)
	}
	coef := d.CoefficientInt64()
	shift := int(d.Exponent()) + FixedDecimals
	switch {
	case shift == 0:
		return Fixed(coef), nil
	case shift > 0:
		if shift >= len(pow10) {
			if coef == 0 {
				return 0, nil
			}
			return 0, fmt.Errorf("%s: %w", decText(d), ErrOverflow)
		}
		m := pow10[shift]
		if coef > math.MaxInt64/m || coef < math.MinInt64/m {
			return 0, fmt.Errorf("%s: %w", decText(d), ErrOverflow)
		}
		return Fixed(coef * m), nil
	default:
		if -shift >= len(pow10) {
			if coef == 0 {
				return 0, nil
			}
			return 0, fmt.Errorf("%s: %w", decText(d), ErrInexact)
		}
		m := pow10[-shift]
		if coef%m != 0 {
			return 0, fmt.Errorf("%s: %w", decText(d), ErrInexact)
		}
		return Fixed(coef / m), nil
	}
}

// fixedFromDecimalSlow handles coefficients of more than 18 digits (a long
// literal with trailing zeros, or a value out of range). Its cost is bounded
// by the length of the coefficient, whatever the exponent.
func fixedFromDecimalSlow(d decimal.Decimal) (Fixed, error) {
	coef := d.Coefficient()
	exp := int64(d.Exponent())
	ten := big.NewInt(10)
	var q, r big.Int
	for coef.Sign() != 0 {
		q.QuoRem(coef, ten, &r)
		if r.Sign() != 0 {
			break
		}
		coef.Set(&q)
		exp++
	}
	shift := exp + FixedDecimals
	switch {
	case coef.Sign() == 0:
		return 0, nil
	case shift < 0:
		return 0, fmt.Errorf("%s: %w", decText(d), ErrInexact)
	case shift >= int64(len(pow10)) || !coef.IsInt64():
		return 0, fmt.Errorf("%s: %w", decText(d), ErrOverflow)
	}
	c, m := coef.Int64(), pow10[shift]
	if c > math.MaxInt64/m || c < math.MinInt64/m {
		return 0, fmt.Errorf("%s: %w", decText(d), ErrOverflow)
	}
	return Fixed(c * m), nil
}

// ParseFixed parses a decimal string such as "0.48", ".48" or "30".
func ParseFixed(s string) (Fixed, error) {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return 0, fmt.Errorf("parse %q: %w", s, err)
	}
	return FixedFromDecimal(d)
}

// Decimal returns f as an exact decimal.
func (f Fixed) Decimal() decimal.Decimal { return decimal.New(int64(f), -FixedDecimals) }

// Float returns f as a float64, for statistics only.
func (f Fixed) Float() float64 { return float64(f) / FixedScale }

// String formats f with trailing fractional zeros removed: "0.48", "30", "-1.5".
func (f Fixed) String() string { return string(f.AppendText(nil)) }

// AppendText appends the String form of f to b.
func (f Fixed) AppendText(b []byte) []byte {
	u := uint64(f)
	if f < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/FixedScale, 10)
	frac := u % FixedScale
	if frac == 0 {
		return b
	}
	var digits [FixedDecimals]byte
	for i := FixedDecimals - 1; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := FixedDecimals
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// decText formats d for an error message without expanding a huge exponent.
func decText(d decimal.Decimal) string {
	if e := d.Exponent(); e > -40 && e < 40 {
		return d.String()
	}
	return d.Coefficient().String() + "e" + strconv.Itoa(int(d.Exponent()))
}

package exchange

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/shopspring/decimal"
)

// Fixed is an exact decimal with six fractional digits, held as an int64
// count of millionths: the exchange's base unit for collateral and shares
// (makerAmount and takerAmount are Fixed values written as integers), and
// fine enough for every tick size. Its range is MinFixed to MaxFixed, about
// ±9.2 × 10^12. + and − on Fixed values are int64 arithmetic; Mul and Div
// round as asked and report overflow.
//
// This is the module's one conversion between decimals and base units: no
// other package scales by 10^6 on its own (internal/archtest checks it).
type Fixed int64

// FixedScale is the number of Fixed units in 1.
const FixedScale = 1_000_000

// FixedDecimals is the number of fractional digits of a Fixed:
// 10^FixedDecimals = FixedScale.
const FixedDecimals = 6

// The bounds of Fixed, at which the rounding conversions saturate.
const (
	MaxFixed Fixed = math.MaxInt64
	MinFixed Fixed = math.MinInt64
)

// Errors of the Fixed conversions and arithmetic. The returned errors wrap
// them and name the offending value.
var (
	// ErrInexact: the value has non-zero digits beyond the sixth decimal
	// place and the rounding mode is RoundExact.
	ErrInexact = errors.New("exchange: more than 6 decimal places")
	// ErrOverflow: the value, after rounding, is outside [MinFixed, MaxFixed].
	ErrOverflow = errors.New("exchange: out of the range of Fixed")
)

// Rounding says what to do with digits beyond the sixth decimal place.
type Rounding uint8

// Rounding modes.
const (
	RoundExact Rounding = iota // no rounding: ErrInexact
	RoundFloor                 // toward −∞
	RoundCeil                  // toward +∞
	RoundTrunc                 // toward zero
)

// String returns the mode's name: "exact", "floor", "ceil" or "trunc".
func (r Rounding) String() string {
	switch r {
	case RoundExact:
		return "exact"
	case RoundFloor:
		return "floor"
	case RoundCeil:
		return "ceil"
	case RoundTrunc:
		return "trunc"
	}
	return "Rounding(" + strconv.Itoa(int(r)) + ")"
}

// check panics on a value that is not one of the four modes: a programming
// error, as a bad argument to strconv.FormatInt's base is.
func (r Rounding) check() {
	if r > RoundTrunc {
		panic("exchange: invalid " + r.String())
	}
}

// away reports whether a quotient truncated toward zero, with a non-zero
// remainder, moves one unit away from zero: its magnitude grows for RoundFloor
// on a negative value and RoundCeil on a positive one.
func (r Rounding) away(neg bool) bool {
	return r == RoundFloor && neg || r == RoundCeil && !neg
}

var pow10 = [...]int64{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
	100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000, 1_000_000_000_000,
	10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
	10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000}

// FixedFromDecimal converts d exactly. It fails with ErrInexact when d has
// non-zero digits beyond the sixth decimal place and with ErrOverflow when d
// does not fit; the value is then 0. It does not allocate for values whose
// coefficient fits in 18 digits.
func FixedFromDecimal(d decimal.Decimal) (Fixed, error) {
	f, err := FixedRound(d, RoundExact)
	if err != nil {
		return 0, err
	}
	return f, nil
}

// FixedRound converts d, rounding as r says. With RoundExact a value that
// needs rounding fails with ErrInexact and 0 (whatever its size). A value
// out of range after rounding gives ErrOverflow together with MaxFixed or
// MinFixed, by the sign of d. It does not allocate for values whose
// coefficient fits in 18 digits; otherwise its cost is bounded by the length
// of the coefficient, whatever the exponent. It panics if r is not a
// Rounding constant.
func FixedRound(d decimal.Decimal, r Rounding) (Fixed, error) {
	r.check()
	if d.NumDigits() > 18 {
		return fixedRoundSlow(d, r)
	}
	coef := d.CoefficientInt64() // |coef| < 10^18
	shift := int(d.Exponent()) + FixedDecimals
	if shift >= 0 {
		if coef == 0 {
			return 0, nil
		}
		if shift >= len(pow10) {
			return saturated(coef < 0), fmt.Errorf("%w: %s", ErrOverflow, decText(d))
		}
		m := pow10[shift]
		if coef > math.MaxInt64/m || coef < math.MinInt64/m {
			return saturated(coef < 0), fmt.Errorf("%w: %s", ErrOverflow, decText(d))
		}
		return Fixed(coef * m), nil
	}
	q, rem := int64(0), coef // |d| < 10^-6 when -shift ≥ 19
	if -shift < len(pow10) {
		m := pow10[-shift]
		q, rem = coef/m, coef%m
	}
	if rem == 0 {
		return Fixed(q), nil
	}
	if r == RoundExact {
		return 0, fmt.Errorf("%w: %s", ErrInexact, decText(d))
	}
	if r.away(coef < 0) { // |q| < 10^17: no overflow
		if coef < 0 {
			q--
		} else {
			q++
		}
	}
	return Fixed(q), nil
}

// fixedRoundSlow is FixedRound for coefficients of more than 18 digits (a
// long literal with trailing zeros, or a value out of range).
func fixedRoundSlow(d decimal.Decimal, r Rounding) (Fixed, error) {
	coef := d.Coefficient()
	exp := int64(d.Exponent())
	ten := big.NewInt(10)
	var q, rem big.Int
	for coef.Sign() != 0 {
		q.QuoRem(coef, ten, &rem)
		if rem.Sign() != 0 {
			break
		}
		coef.Set(&q)
		exp++
	}
	neg := coef.Sign() < 0
	shift := exp + FixedDecimals
	switch {
	case coef.Sign() == 0:
		return 0, nil
	case shift >= int64(len(pow10)):
		return saturated(neg), fmt.Errorf("%w: %s", ErrOverflow, decText(d))
	case shift >= 0:
		q.Mul(coef, big.NewInt(pow10[shift]))
	case r == RoundExact:
		// coef has no trailing zero, so dropping a digit loses something.
		return 0, fmt.Errorf("%w: %s", ErrInexact, decText(d))
	case -shift > int64(coef.BitLen()):
		// 10^-shift > 2^BitLen > |coef|: the quotient is 0.
		q.SetInt64(0)
	default:
		q.Quo(coef, new(big.Int).Exp(ten, big.NewInt(-shift), nil)) // toward zero
	}
	if shift < 0 && r.away(neg) { // the remainder is not zero (no trailing zero)
		q.Add(&q, big.NewInt(int64(coef.Sign())))
	}
	if !q.IsInt64() {
		return saturated(neg), fmt.Errorf("%w: %s", ErrOverflow, decText(d))
	}
	return Fixed(q.Int64()), nil
}

// saturated returns the bound on the side of the sign.
func saturated(neg bool) Fixed {
	if neg {
		return MinFixed
	}
	return MaxFixed
}

// ParseFixed parses a decimal string such as "0.48", ".48", "30" or "1e-2"
// exactly, as FixedFromDecimal.
func ParseFixed(s string) (Fixed, error) { return ParseFixedBytes([]byte(s)) }

// ParseFixedBytes is ParseFixed for text in a byte slice (a decoder's
// buffer). The plain form [-]digits[.digits], with at most 12 integer and 6
// fractional digits, is parsed without allocating; any other form goes
// through decimal.
func ParseFixedBytes(b []byte) (Fixed, error) {
	if f, ok := parsePlain(b); ok {
		return f, nil
	}
	d, err := decimal.NewFromString(string(b))
	if err != nil {
		return 0, fmt.Errorf("exchange: parse %q: %w", b, err)
	}
	return FixedFromDecimal(d)
}

// fracScale[k] scales a fraction of 6−k digits to millionths.
var fracScale = [...]int64{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000}

// parsePlain parses [-]digits[.digits] with at most 6 fractional digits and
// 12 integer digits; false for anything else.
func parsePlain(b []byte) (Fixed, bool) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		neg, i = true, 1
	}
	var v int64
	intDigits, fracDigits := 0, -1
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			if fracDigits >= 0 {
				if fracDigits == FixedDecimals {
					return 0, false
				}
				fracDigits++
			} else if intDigits++; intDigits > 12 {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		case c == '.' && fracDigits < 0:
			fracDigits = 0
		default:
			return 0, false
		}
	}
	if intDigits == 0 && fracDigits <= 0 {
		return 0, false
	}
	if fracDigits < 0 {
		fracDigits = 0
	}
	v *= fracScale[FixedDecimals-fracDigits]
	if neg {
		v = -v
	}
	return Fixed(v), true
}

// Mul returns f × g rounded as r says. Out of range it returns ErrOverflow
// with MaxFixed or MinFixed by the sign of the product; with RoundExact a
// product that needs rounding fails with ErrInexact and 0 first. It never allocates
// unless it fails, and panics if r is not a Rounding constant.
func (f Fixed) Mul(g Fixed, r Rounding) (Fixed, error) {
	r.check()
	hi, lo := bits.Mul64(f.magnitude(), g.magnitude())
	v, err := quo(hi, lo, FixedScale, (f < 0) != (g < 0), r)
	if err != nil {
		return v, fmt.Errorf("%w: %s × %s", err, f, g)
	}
	return v, nil
}

// Div returns f / g rounded as r says. Out of range it returns ErrOverflow
// with MaxFixed or MinFixed by the sign of the quotient; with RoundExact a
// quotient that needs rounding fails with ErrInexact and 0 first. It never allocates
// unless it fails, and panics if g is 0 (as integer division does) or if r
// is not a Rounding constant.
func (f Fixed) Div(g Fixed, r Rounding) (Fixed, error) {
	r.check()
	if g == 0 {
		panic("exchange: Fixed division by zero")
	}
	hi, lo := bits.Mul64(f.magnitude(), FixedScale)
	v, err := quo(hi, lo, g.magnitude(), (f < 0) != (g < 0), r)
	if err != nil {
		return v, fmt.Errorf("%w: %s / %s", err, f, g)
	}
	return v, nil
}

// magnitude returns |f|, exact also for MinFixed.
func (f Fixed) magnitude() uint64 {
	if f < 0 {
		return -uint64(f)
	}
	return uint64(f)
}

// quo returns ±(hi·2^64 + lo) / div, rounded as r says, with the sign neg,
// and a bare ErrInexact or ErrOverflow for the caller to wrap.
func quo(hi, lo, div uint64, neg bool, r Rounding) (Fixed, error) {
	if hi >= div { // the quotient needs more than 64 bits
		if _, rem := bits.Div64(hi%div, lo, div); rem != 0 && r == RoundExact {
			return 0, ErrInexact // as FixedRound: inexact before out of range
		}
		return saturated(neg), ErrOverflow
	}
	q, rem := bits.Div64(hi, lo, div)
	if rem != 0 {
		if r == RoundExact {
			return 0, ErrInexact
		}
		if r.away(neg) {
			if q == math.MaxUint64 {
				return saturated(neg), ErrOverflow
			}
			q++
		}
	}
	if neg {
		if q > 1<<63 {
			return MinFixed, ErrOverflow
		}
		return Fixed(-q), nil // -(1<<63) wraps to MinFixed, as it should
	}
	if q > math.MaxInt64 {
		return MaxFixed, ErrOverflow
	}
	return Fixed(q), nil
}

// Decimal returns f as an exact decimal with no trailing fractional zeros
// in its representation: 0.01 has exponent −2, as if parsed from "0.01".
func (f Fixed) Decimal() decimal.Decimal {
	v, exp := int64(f), int32(-FixedDecimals)
	for exp < 0 && v%10 == 0 {
		v /= 10
		exp++
	}
	if v == 0 {
		exp = 0
	}
	return decimal.New(v, exp)
}

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

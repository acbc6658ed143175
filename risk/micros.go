package risk

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/shopspring/decimal"
)

// Micro-units: the exchange's 6-decimal base units.
const (
	microExp = 6
	micro    = 1_000_000
)

var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// microsUp converts d to micro-units, rounding toward +∞ when d has more than
// six decimals. ok is false when the value does not fit in an int64 (the
// result then saturates).
func microsUp(d decimal.Decimal) (int64, bool) { return toMicros(d, true) }

// microsDown is microsUp rounding toward −∞.
func microsDown(d decimal.Decimal) (int64, bool) { return toMicros(d, false) }

func toMicros(d decimal.Decimal, up bool) (int64, bool) {
	if d.NumDigits() > 18 {
		return slowMicros(d, up)
	}
	c, e := d.CoefficientInt64(), int(d.Exponent())+microExp
	switch {
	case e >= 0:
		if e > 18 {
			return saturate(c), c == 0
		}
		hi, lo := bits.Mul64(uint64(abs64(c)), uint64(pow10[e]))
		if hi != 0 || lo > math.MaxInt64 {
			return saturate(c), false
		}
		if c < 0 {
			return -int64(lo), true
		}
		return int64(lo), true
	case e < -18:
		// |d| < 10^-12: rounds to 0 or ±1 micro-unit.
		switch {
		case c > 0 && up:
			return 1, true
		case c < 0 && !up:
			return -1, true
		}
		return 0, true
	default:
		p := pow10[-e]
		q, r := c/p, c%p
		if r != 0 && up && c > 0 {
			q++
		}
		if r != 0 && !up && c < 0 {
			q--
		}
		return q, true
	}
}

// slowMicros handles coefficients of more than 18 digits (never produced by
// the exchange's 6-decimal amounts) through big arithmetic.
func slowMicros(d decimal.Decimal, up bool) (int64, bool) {
	s := d.Shift(microExp)
	if up {
		s = s.Ceil()
	} else {
		s = s.Floor()
	}
	b := s.BigInt()
	if !b.IsInt64() {
		return saturate(int64(b.Sign())), false
	}
	return b.Int64(), true
}

func saturate(sign int64) int64 {
	if sign < 0 {
		return math.MinInt64
	}
	if sign > 0 {
		return math.MaxInt64
	}
	return 0
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// mulMicros multiplies two non-negative micro-unit values, rounding up and
// saturating at MaxInt64.
func mulMicros(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= micro {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, micro)
	if r != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// satAdd adds without wrapping.
func satAdd(a, b int64) int64 {
	s := a + b
	if a > 0 && b > 0 && s < 0 {
		return math.MaxInt64
	}
	if a < 0 && b < 0 && s >= 0 {
		return math.MinInt64
	}
	return s
}

// fairMicros converts a YES fair value to micro-units; 0 means unknown.
func fairMicros(f float64) int64 {
	if !(f > 0 && f < 1) {
		return 0
	}
	m := int64(math.Round(f * micro))
	return min(max(m, 1), micro-1)
}

// fmtMicros formats micro-units as a decimal string for details.
func fmtMicros(v int64) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u/micro, 10)
	if f := u % micro; f != 0 {
		fs := strconv.FormatUint(f+micro, 10)[1:]
		for fs[len(fs)-1] == '0' {
			fs = fs[:len(fs)-1]
		}
		s += "." + fs
	}
	if neg {
		s = "-" + s
	}
	return s
}

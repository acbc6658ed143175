package risk

import (
	"math"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// The checks work in exchange.Fixed (the exchange's 6-decimal base units)
// and round against the order: sizes, prices and exposure up, limits and
// what we hold down.
const (
	up   = exchange.RoundCeil
	down = exchange.RoundFloor
)

// one is 1 in base units.
const one exchange.Fixed = exchange.FixedScale

// round converts d, rounding as r says; a value out of range saturates.
func round(d decimal.Decimal, r exchange.Rounding) exchange.Fixed {
	v, _ := exchange.FixedRound(d, r)
	return v
}

// mulUp multiplies two non-negative values, rounding up and saturating at
// MaxFixed; a negative or zero operand gives 0.
func mulUp(a, b exchange.Fixed) exchange.Fixed {
	if a <= 0 || b <= 0 {
		return 0
	}
	v, _ := a.Mul(b, up)
	return v
}

// satAdd adds without wrapping.
func satAdd(a, b exchange.Fixed) exchange.Fixed {
	s := a + b
	if a > 0 && b > 0 && s < 0 {
		return exchange.MaxFixed
	}
	if a < 0 && b < 0 && s >= 0 {
		return exchange.MinFixed
	}
	return s
}

// fairValue converts a YES fair value to base units, within [1, one−1];
// 0 means unknown.
func fairValue(f float64) exchange.Fixed {
	if !(f > 0 && f < 1) {
		return 0
	}
	m := exchange.Fixed(math.Round(f * exchange.FixedScale))
	return min(max(m, 1), one-1)
}

// abs returns |x| (prices only: never MinFixed).
func abs(x exchange.Fixed) exchange.Fixed {
	if x < 0 {
		return -x
	}
	return x
}

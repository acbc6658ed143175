package exchange

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestValidTickIsTickSizes holds ValidTick, which compares base units, to
// equality with one of TickSizes, on the ticks written every way and on
// random values near them.
func TestValidTickIsTickSizes(t *testing.T) {
	plain := func(d decimal.Decimal) bool {
		if !tame(d) {
			return false
		}
		for _, s := range TickSizes {
			if d.Equal(s) {
				return true
			}
		}
		return false
	}
	var cases []decimal.Decimal
	for _, s := range TickSizes {
		cases = append(cases, s, s.Neg(), s.Mul(decimal.New(10, 0)).Div(decimal.New(10, 0)), decimal.New(s.Coefficient().Int64()*1000, s.Exponent()-3))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		cases = append(cases, decimal.New(int64(rng.IntN(2001))-1000, -int32(rng.IntN(9))))
	}
	cases = append(cases, decimal.Zero, decimal.New(1, -40), decimal.New(1, 50), decimal.New(5, -5))
	for _, d := range cases {
		if got, want := ValidTick(d), plain(d); got != want {
			t.Fatalf("ValidTick(%s) = %v, equality with TickSizes %v", d, got, want)
		}
	}
}

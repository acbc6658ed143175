package exchange

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/shopspring/decimal"
)

// TestNormalizeAsSorting: Normalize orders any book as a stable sort does
// (best first; equal prices keep their order), the exchange's worst-first
// books and already sorted ones included.
func TestNormalizeAsSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		levels := make([]PriceLevel, n%9)
		for i := range levels {
			levels[i] = PriceLevel{Price: decimal.New(int64(r.IntN(6)), -2), Size: decimal.New(int64(i), 0)}
		}
		switch n % 3 {
		case 1: // worst first, as the exchange sends them
			sort.SliceStable(levels, func(i, j int) bool { return levels[i].Price.LessThan(levels[j].Price) })
		case 2:
			sort.SliceStable(levels, func(i, j int) bool { return levels[i].Price.GreaterThan(levels[j].Price) })
		}
		b := OrderBook{Bids: slices.Clone(levels), Asks: slices.Clone(levels)}
		wantBids, wantAsks := slices.Clone(levels), slices.Clone(levels)
		sort.SliceStable(wantBids, func(i, j int) bool { return wantBids[i].Price.GreaterThan(wantBids[j].Price) })
		sort.SliceStable(wantAsks, func(i, j int) bool { return wantAsks[i].Price.LessThan(wantAsks[j].Price) })
		b.Normalize()
		same := func(a, b []PriceLevel) bool {
			return slices.EqualFunc(a, b, func(x, y PriceLevel) bool { return x.Price.Equal(y.Price) && x.Size.Equal(y.Size) })
		}
		if !same(b.Bids, wantBids) || !same(b.Asks, wantAsks) {
			t.Fatalf("book %d: Normalize gave bids %v asks %v, want %v and %v", n, b.Bids, b.Asks, wantBids, wantAsks)
		}
	}
}

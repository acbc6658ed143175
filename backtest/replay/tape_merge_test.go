package replay

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// sortNewest is the reference mergeNewest replaces: every picked trade of
// every tape, oldest first, stable-sorted by time, the last limit kept.
func sortNewest(mks []*replayMarket, side exchange.Side, limit int) []exchange.Trade {
	var picked []*tapeTrade
	for _, mk := range mks {
		for i := mk.n - 1; i >= 0; i-- {
			if tt := mk.tapeAt(i); side == "" || tt.tr.Side == side {
				picked = append(picked, tt)
			}
		}
	}
	slices.SortStableFunc(picked, func(a, b *tapeTrade) int { return a.at.Compare(b.at) })
	picked = picked[len(picked)-min(limit, len(picked)):]
	out := make([]exchange.Trade, len(picked))
	for i, tt := range picked {
		out[i] = tt.tr
	}
	return out
}

// TestMergeNewestIsTheStableSort checks, on random tapes (rings that
// wrapped or not, many trades at the same second, both sides, empty
// markets), that merging from the newest end returns what the stable sort
// of all picked trades does, for limits below, at and above the total.
func TestMergeNewestIsTheStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	for trial := range 500 {
		size := 1 + rng.IntN(8)
		mks := make([]*replayMarket, 1+rng.IntN(5))
		id := 0
		for m := range mks {
			mk := &replayMarket{tape: make([]*tapeTrade, size)}
			at := t0
			for range rng.IntN(3 * size) {
				at = at.Add(time.Duration(rng.IntN(3)) * time.Second) // ties are common
				sd := exchange.Buy
				if rng.IntN(2) == 0 {
					sd = exchange.Sell
				}
				id++
				mk.tape[mk.head] = &tapeTrade{at: at, tr: exchange.Trade{Side: sd, Asset: fmt.Sprint(m), Timestamp: int64(id)}}
				mk.head = (mk.head + 1) % size
				mk.n = min(mk.n+1, size)
			}
			mks[m] = mk
		}
		for _, side := range []exchange.Side{"", exchange.Buy, exchange.Sell} {
			for _, limit := range []int{0, 1, 2, 3, 5, 8, 100} {
				got, want := mergeNewest(mks, side, limit), sortNewest(mks, side, limit)
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d side %q limit %d:\n got %v\nwant %v", trial, side, limit, got, want)
				}
			}
		}
	}
}

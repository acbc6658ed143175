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

// TestTapeMemo checks that the memo of Trades answers the merge of the
// tapes as they are: again after a trade is shown (the version moves),
// for other parameters; and that a slice it handed out keeps what it held
// through later merges.
func TestTapeMemo(t *testing.T) {
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	mks := []*replayMarket{{tape: make([]*tapeTrade, 4)}, {tape: make([]*tapeTrade, 4)}}
	var ver uint64
	add := func(m int, sec int, sd exchange.Side) {
		mks[m].push(&tapeTrade{at: t0.Add(time.Duration(sec) * time.Second), tr: exchange.Trade{Side: sd, Timestamp: int64(sec), Asset: fmt.Sprint(m)}})
		ver++
	}
	var memo tapeMemo
	var handed []struct{ got, want []exchange.Trade }
	check := func(step string, sel []*replayMarket, side exchange.Side, limit int) {
		t.Helper()
		for _, h := range handed {
			if !slices.Equal(h.got, h.want) {
				t.Fatalf("%s: a slice handed out before changed: %v, was %v", step, h.got, h.want)
			}
		}
		got := memo.merge(ver, sel, side, limit)
		want := sortNewest(sel, side, limit)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", step, got, want)
		}
		handed = append(handed, struct{ got, want []exchange.Trade }{got, want})
	}
	add(0, 1, exchange.Buy)
	add(1, 2, exchange.Sell)
	check("first", mks, "", 3)
	check("again", mks, "", 3)
	add(0, 3, exchange.Sell)
	check("after a trade", mks, "", 3)
	check("one side", mks, exchange.Sell, 3)
	check("smaller limit", mks, exchange.Sell, 1)
	check("one market", mks[1:], "", 3)
	for i := range 6 {
		add(i%2, 4+i, exchange.Buy)
		check(fmt.Sprintf("trade %d", i), mks, "", 5)
	}
}

// TestTapeMemoExtends checks the memo's extension against the stable sort
// on random shows: trades of many markets in time order with many ties
// (sometimes one back in time, as an odd recording has, until a tape
// is out of order: Trades then sorts), small rings that
// wrap, both sides, several limits, a read after every one to five
// trades. The extension must answer most reads, and exactly.
func TestTapeMemoExtends(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	reads, extended := 0, 0
	for trial := range 200 {
		size := 1 + rng.IntN(8)
		mks := make([]*replayMarket, 1+rng.IntN(5))
		for m := range mks {
			mks[m] = &replayMarket{tape: make([]*tapeTrade, size)}
		}
		sel := mks[:1+rng.IntN(len(mks))]
		side := []exchange.Side{"", exchange.Buy, exchange.Sell}[rng.IntN(3)]
		limit := []int{0, 1, 3, 5, 8, 100}[rng.IntN(6)]
		var memo tapeMemo
		var ver uint64
		var handed [][2][]exchange.Trade // what each read returned, and the merge it was
		at, id := t0, 0
		for range 60 {
			for range 1 + rng.IntN(5) {
				switch r := rng.IntN(200); {
				case r == 0:
					at = at.Add(-time.Second) // out of order
				case r <= 20: // a tie
				default:
					at = at.Add(time.Duration(rng.IntN(3)) * time.Millisecond)
				}
				sd := exchange.Buy
				if rng.IntN(2) == 0 {
					sd = exchange.Sell
				}
				id++
				m := rng.IntN(len(mks))
				mks[m].push(&tapeTrade{at: at, tr: exchange.Trade{Side: sd, Asset: fmt.Sprint(m), Timestamp: int64(id)}})
				ver++
			}
			if slices.ContainsFunc(sel, func(mk *replayMarket) bool { return mk.unsorted }) {
				break // Trades sorts instead
			}
			got := memo.merge(ver, sel, side, limit)
			want := sortNewest(sel, side, limit)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d side %q limit %d trade %d:\n got %v\nwant %v", trial, side, limit, id, got, want)
			}
			for _, h := range handed {
				if !slices.Equal(h[0], h[1]) {
					t.Fatalf("trial %d trade %d: a slice handed out before changed", trial, id)
				}
			}
			handed = append(handed, [2][]exchange.Trade{got, want})
			reads++
		}
		extended += memo.extended
	}
	t.Logf("the extension answered %d of %d reads", extended, reads)
	if extended < reads/3 {
		t.Errorf("the extension answered %d of %d reads: want most", extended, reads)
	}
}

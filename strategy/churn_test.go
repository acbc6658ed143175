package strategy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// walkBooks returns a deterministic random walk of the others' books: the
// fair value moves by a normal step of sd 0.002 (a fifth of a tick) each
// cycle; the books sit two cents either side of it, mirrored on NO, with
// sizes that change every cycle.
func walkBooks(n int, seed uint64) []*Snapshot {
	r := rand.New(rand.NewPCG(seed, 1))
	tick := d("0.01")
	fair := 0.5
	out := make([]*Snapshot, n)
	for i := range out {
		fair = min(max(fair+0.002*r.NormFloat64(), 0.1), 0.9)
		bid := int64(math.Floor((fair - 0.02) * 100))
		ask := int64(math.Ceil((fair + 0.02) * 100))
		sz := func() decimal.Decimal { return decimal.New(int64(5000+r.IntN(20000)), -2) }
		s := &Snapshot{ConditionID: "0xwalk", Tick: tick, MinSize: d("5"), Now: t0}
		s.Tokens[Yes] = TokenBook{TokenID: "Y",
			Bids: []exchange.PriceLevel{{Price: decimal.New(bid, -2), Size: sz()}},
			Asks: []exchange.PriceLevel{{Price: decimal.New(ask, -2), Size: sz()}}}
		s.Tokens[No] = TokenBook{TokenID: "N",
			Bids: []exchange.PriceLevel{{Price: decimal.New(100-ask, -2), Size: sz()}},
			Asks: []exchange.PriceLevel{{Price: decimal.New(100-bid, -2), Size: sz()}}}
		out[i] = s
	}
	return out
}

func sameOrders(a, b []Order) bool {
	return slices.EqualFunc(a, b, func(x, y Order) bool {
		return x.Outcome == y.Outcome && x.Side == y.Side && x.Price.Equal(y.Price) && x.Size.Equal(y.Size)
	})
}

// TestChurn compares the orders the planner sends with a cancel-all-and-
// replace baseline on a walk of small book moves: whenever the quotes on the
// grid change, the baseline cancels every open order and places every quote.
func TestChurn(t *testing.T) {
	model, err := NewBands(BandsParams{Offsets: []float64{0.01, 0.02, 0.04}, Sizes: []float64{10, 20, 40}})
	if err != nil {
		t.Fatal(err)
	}
	tol := Tolerance{PriceTicks: 1, SizeFrac: 0.1}
	var p, ref Planner
	var open []OpenOrder
	var prev []Order
	var desired []Desired
	var changes, baseline, sent int
	for _, others := range walkBooks(3000, 7) {
		s := withOwn(others, open)
		desired = model.Quote(desired[:0], s, nil)
		// The quotes on the grid, as a fresh planner would place them.
		fresh, err := ref.Plan(desired, others, tol, Unlimited())
		if err != nil {
			t.Fatal(err)
		}
		if !sameOrders(fresh.Places, prev) {
			changes++
			baseline += len(open) + len(fresh.Places)
			prev = slices.Clone(fresh.Places)
		}
		plan, err := p.Plan(desired, s, tol, Unlimited())
		if err != nil {
			t.Fatal(err)
		}
		sent += len(plan.Cancels) + len(plan.Places)
		open = finalSet(plan)
	}
	if changes < 100 || sent == 0 {
		t.Fatalf("the walk is too quiet: %d quote changes, %d orders sent", changes, sent)
	}
	ratio := float64(baseline) / float64(sent)
	t.Logf("%d quote changes: cancel-all-and-replace sent %d orders (%.1f per change), the planner %d (%.2f per change): ratio %.2f",
		changes, baseline, float64(baseline)/float64(changes), sent, float64(sent)/float64(changes), ratio)
	if ratio < 3 {
		t.Fatalf("planner/baseline ratio %.2f < 3", ratio)
	}
}

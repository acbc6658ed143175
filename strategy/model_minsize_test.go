package strategy

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// fixedModel quotes what it is given.
type fixedModel []Desired

func (f fixedModel) Quote(dst []Desired, _ *Snapshot, _ *MarketState) []Desired {
	return append(dst, f...)
}

func TestWithMinSizeLiftsSmallQuotes(t *testing.T) {
	inner := fixedModel{
		{Outcome: Yes, Side: exchange.Buy, Price: 0.40, Size: 10},
		{Outcome: No, Side: exchange.Buy, Price: 0.50, Size: 20},
		{Outcome: No, Side: exchange.Buy, Price: 0.45, Size: 0}, // nothing wanted stays nothing
	}
	s := &Snapshot{MinSize: decimal.RequireFromString("15"), Tick: decimal.RequireFromString("0.01")}
	prefix := []Desired{{Size: 1}} // the caller's slice is left alone
	got := WithMinSize(inner).Quote(prefix, s, nil)
	want := []float64{1, 15, 20, 0}
	if len(got) != len(want) {
		t.Fatalf("got %d quotes, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Size != w {
			t.Errorf("quote %d: size %v, want %v", i, got[i].Size, w)
		}
	}
	// Planned: both lifted and untouched quotes clear the minimum.
	s.Tokens[Yes] = TokenBook{TokenID: "y", Bids: []exchange.PriceLevel{{Price: decimal.RequireFromString("0.30"), Size: decimal.NewFromInt(100)}},
		Asks: []exchange.PriceLevel{{Price: decimal.RequireFromString("0.60"), Size: decimal.NewFromInt(100)}}}
	s.Tokens[No] = TokenBook{TokenID: "n", Bids: []exchange.PriceLevel{{Price: decimal.RequireFromString("0.30"), Size: decimal.NewFromInt(100)}},
		Asks: []exchange.PriceLevel{{Price: decimal.RequireFromString("0.60"), Size: decimal.NewFromInt(100)}}}
	var p Planner
	plan, err := p.Plan(got[1:], s, Tolerance{}, Unlimited())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Places) != 2 {
		t.Fatalf("planned %d orders, want 2 (the lifted YES bid and the NO bid): %+v", len(plan.Places), plan.Places)
	}
	plain, _ := (&Planner{}).Plan(inner, s, Tolerance{}, Unlimited())
	if len(plain.Places) != 1 {
		t.Fatalf("without the lift the planner placed %d orders, want 1 (the 10-share quote is below the minimum)", len(plain.Places))
	}
}

package strategy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

func want_(o Outcome, side exchange.Side, price, size float64) Desired {
	return Desired{Outcome: o, Side: side, Price: price, Size: size}
}

func placesString(p Plan) string {
	var parts []string
	for _, o := range p.Places {
		parts = append(parts, fmt.Sprintf("%s %s %s@%s", o.Side, o.Outcome, o.Size, o.Price))
	}
	return strings.Join(parts, ", ")
}

func ids(oo []OpenOrder) string {
	var parts []string
	for _, o := range oo {
		parts = append(parts, o.ID)
	}
	return strings.Join(parts, ",")
}

func TestPlan(t *testing.T) {
	tol := Tolerance{PriceTicks: 1, SizeFrac: 0.1}
	B, S := exchange.Buy, exchange.Sell
	cases := []struct {
		name    string
		snap    *Snapshot
		desired []Desired
		open    []OpenOrder
		budget  Budget
		places  string // by value, highest first; decimals print without trailing zeros
		cancels string
		kept    string
		dropped int
	}{
		{name: "round bids down, asks up, sizes down",
			snap:    book("0.01", "0.45", "0.55", "0.45", "0.55"),
			desired: []Desired{want_(Yes, B, 0.4999, 10.456), want_(No, B, 0.4801, 7), want_(Yes, S, 0.5301, 6)},
			places:  "BUY YES 10.45@0.49, BUY NO 7@0.48, SELL YES 6@0.54"},
		{name: "float noise: 0.29 stays 0.29",
			snap:    book("0.01", "0.2", "0.8", "", ""),
			desired: []Desired{want_(Yes, B, 0.29, 5), want_(No, B, 0.57, 5)},
			places:  "BUY NO 5@0.57, BUY YES 5@0.29"},
		{name: "minimum size",
			snap:    book("0.01", "0.45", "0.55", "", ""),
			desired: []Desired{want_(Yes, B, 0.49, 4.999), want_(Yes, B, 0.48, 5.009), want_(No, B, 0.48, 0), want_(No, B, 0.47, -3)},
			places:  "BUY YES 5@0.48"},
		{name: "price bounds",
			snap:    book("0.01", "", "", "", ""),
			desired: []Desired{want_(Yes, B, 0.0001, 5), want_(Yes, B, 1.2, 5), want_(Yes, S, -1, 5)},
			// The BUY YES clamps to 0.99; the SELL YES would sit at 0.01, below
			// our own bid, and the planner lowers the bid to 0.00: dropped.
			places: "SELL YES 5@0.01"},
		{name: "never cross the book, either token",
			snap:    book("0.01", "0.40", "0.555", "0.48", ""),
			desired: []Desired{want_(Yes, B, 0.60, 5)},
			// YES ask 0.555 and NO bid 0.48 (a YES ask at 0.52): at most 0.51.
			places: "BUY YES 5@0.51"},
		{name: "our own bid and ask never cross",
			snap:    book("0.01", "0.40", "0.60", "", ""),
			desired: []Desired{want_(Yes, B, 0.52, 5), want_(No, B, 0.49, 5)},
			// NO bid 0.49 is a YES ask at 0.51: the YES bid moves to 0.50;
			// 0.50 + 0.49 = 0.99 = 1 − tick.
			places: "BUY YES 5@0.5, BUY NO 5@0.49"},
		{name: "keep within tolerance",
			snap:    book("0.01", "0.40", "0.60", "", ""),
			desired: []Desired{want_(Yes, B, 0.50, 10.5)},
			open:    []OpenOrder{open("k", Yes, B, "0.49", "10")},
			kept:    "k"},
		{name: "replace beyond the price tolerance",
			snap:    book("0.01", "0.40", "0.60", "", ""),
			desired: []Desired{want_(Yes, B, 0.50, 10)},
			open:    []OpenOrder{open("x", Yes, B, "0.48", "10")},
			places:  "BUY YES 10@0.5", cancels: "x"},
		{name: "replace beyond the size tolerance",
			snap:    book("0.01", "0.40", "0.60", "", ""),
			desired: []Desired{want_(Yes, B, 0.50, 10)},
			open:    []OpenOrder{open("x", Yes, B, "0.50", "8.99")},
			places:  "BUY YES 10@0.5", cancels: "x"},
		{name: "off-grid, unwanted and unknown orders go",
			snap:    book("0.01", "0.40", "0.60", "", ""),
			desired: []Desired{want_(Yes, B, 0.50, 10)},
			// "off" is replaced by the new quote (value 1, at fair); "bad" has
			// no price we trust and counts as at fair; "extra" is far away.
			open: []OpenOrder{open("off", Yes, B, "0.495", "10"), open("extra", No, B, "0.30", "10"),
				{ID: "bad", Outcome: 7, Side: B, Price: d("0.5"), Size: d("1")}},
			places: "BUY YES 10@0.5", cancels: "off,bad,extra"},
		{name: "a kept order that would cross is replaced",
			snap:    book("0.01", "0.40", "0.60", "", ""),
			desired: []Desired{want_(Yes, B, 0.50, 10), want_(No, B, 0.49, 10)},
			open:    []OpenOrder{open("y51", Yes, B, "0.51", "10")},
			places:  "BUY YES 10@0.5, BUY NO 10@0.49", cancels: "y51"},
		{name: "the best matching is kept, not the first",
			snap:    book("0.01", "0.30", "0.70", "", ""),
			desired: []Desired{want_(Yes, B, 0.50, 10), want_(Yes, B, 0.52, 10)},
			open:    []OpenOrder{open("o51", Yes, B, "0.51", "10"), open("o53", Yes, B, "0.53", "10")},
			kept:    "o51,o53"},
		{name: "short place budget keeps the quotes nearest fair",
			snap:    book("0.01", "0.30", "0.70", "", ""),
			desired: []Desired{want_(Yes, B, 0.45, 5), want_(Yes, B, 0.49, 5), want_(No, B, 0.45, 5), want_(No, B, 0.40, 5)},
			budget:  Budget{Places: 2, Cancels: 9},
			places:  "BUY YES 5@0.49, BUY YES 5@0.45", dropped: 2},
		{name: "no place budget: a replacement keeps its cancel",
			snap:    book("0.01", "0.30", "0.70", "", ""),
			desired: []Desired{want_(Yes, B, 0.49, 5)},
			open:    []OpenOrder{open("stale", Yes, B, "0.40", "5")},
			budget:  Budget{Places: 0, Cancels: 1},
			cancels: "stale", dropped: 1},
		{name: "no cancel budget: a place that would cross a stale order waits",
			snap:    book("0.01", "0.30", "0.70", "", ""),
			desired: []Desired{want_(No, B, 0.49, 5)},
			open:    []OpenOrder{open("stale", Yes, B, "0.52", "5")},
			budget:  Budget{Places: 5, Cancels: 0},
			dropped: 2},
		{name: "tick 0.001 and a normalized 0.0010",
			snap:    book("0.0010", "0.900", "0.999", "", ""),
			desired: []Desired{want_(Yes, B, 0.9537, 12.3), want_(No, B, 0.0419, 5)},
			places:  "BUY YES 12.3@0.953, BUY NO 5@0.041"},
		{name: "tick 0.1",
			snap:    book("0.1", "", "", "", ""),
			desired: []Desired{want_(Yes, B, 0.47, 5), want_(No, B, 0.47, 5)},
			places:  "BUY YES 5@0.4, BUY NO 5@0.4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p Planner
			s := c.snap
			s.Open = c.open
			b := c.budget
			if b == (Budget{}) {
				b = Unlimited()
			}
			plan, err := p.Plan(c.desired, s, tol, b)
			if err != nil {
				t.Fatal(err)
			}
			got := placesString(plan)
			if got != c.places {
				t.Errorf("places %q\n          want %q", got, c.places)
			}
			if g := ids(plan.Cancels); g != c.cancels {
				t.Errorf("cancels %q, want %q", g, c.cancels)
			}
			if g := ids(plan.Kept); g != c.kept {
				t.Errorf("kept %q, want %q", g, c.kept)
			}
			if plan.Dropped != c.dropped {
				t.Errorf("dropped %d, want %d", plan.Dropped, c.dropped)
			}
			for _, o := range plan.Places {
				if o.TokenID != s.Tokens[o.Outcome].TokenID {
					t.Errorf("token %q", o.TokenID)
				}
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	var p Planner
	for _, tick := range []string{"0", "-0.01", "0.03", "0.6", "1", "2", "0.00005", "0.0000000000001"} {
		s := book(tick, "", "", "", "")
		if _, err := p.Plan(nil, s, Tolerance{}, Unlimited()); !errors.Is(err, ErrInvalidSnapshot) {
			t.Errorf("tick %s: err %v", tick, err)
		}
	}
	s := book("0.01", "", "", "", "")
	s.MinSize = d("-1")
	if _, err := p.Plan(nil, s, Tolerance{}, Unlimited()); !errors.Is(err, ErrInvalidSnapshot) {
		t.Errorf("min size: %v", err)
	}
	s.MinSize = d("5")
	for _, tol := range []Tolerance{{PriceTicks: -1}, {SizeFrac: 1.5}, {SizeFrac: -0.1}} {
		if _, err := p.Plan(nil, s, tol, Unlimited()); err == nil {
			t.Errorf("%+v accepted", tol)
		}
	}
	for _, tick := range []string{"0.5", "0.005", "0.25"} {
		if _, err := p.Plan(nil, book(tick, "", "", "", ""), Tolerance{}, Unlimited()); err != nil {
			t.Errorf("tick %s: %v", tick, err)
		}
	}
}

// TestPlanIdempotentSimple: the plan's own result, as open orders, needs
// nothing more.
func TestPlanIdempotentSimple(t *testing.T) {
	var p Planner
	base := book("0.01", "0.40", "0.60", "0.40", "0.60")
	desired := []Desired{want_(Yes, exchange.Buy, 0.49, 10), want_(No, exchange.Buy, 0.49, 10), want_(Yes, exchange.Buy, 0.47, 20), want_(No, exchange.Buy, 0.47, 20)}
	tol := Tolerance{PriceTicks: 1, SizeFrac: 0.1}
	s1 := withOwn(base, []OpenOrder{open("old", Yes, exchange.Buy, "0.48", "10")})
	plan, err := p.Plan(desired, s1, tol, Unlimited())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Kept) != 1 || len(plan.Places) != 3 {
		t.Fatalf("first plan: %s kept %s", placesString(plan), ids(plan.Kept))
	}
	s2 := withOwn(base, finalSet(plan))
	plan2, err := p.Plan(desired, s2, tol, Unlimited())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan2.Places)+len(plan2.Cancels) != 0 || len(plan2.Kept) != 4 {
		t.Fatalf("second plan: places %s cancels %s", placesString(plan2), ids(plan2.Cancels))
	}
	if !slices.Equal([]string{ids(plan2.Kept)}, []string{ids(s2.Open)}) {
		t.Fatalf("kept %s of %s", ids(plan2.Kept), ids(s2.Open))
	}
}

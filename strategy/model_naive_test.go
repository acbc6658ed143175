package strategy

import (
	"math"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// The naive quoter bids a tick above the best bid of others and asks a
// tick below their best ask, in YES space across both books, and joins the
// touch when the spread is two ticks or less; without held shares its ask
// is a BUY of NO at 1 − ask.
func TestNaiveQuotesInsideTheTouch(t *testing.T) {
	m, err := NewNaive(NaiveParams{Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		s        *Snapshot
		bid, ask float64 // YES space; 0: no quote
	}{
		{"one tick inside", book("0.01", "0.45", "0.55", "", ""), 0.46, 0.54},
		{"the NO book's complement is better", book("0.01", "0.45", "0.55", "0.47", "0.52"), 0.49, 0.52},
		{"two ticks wide: join", book("0.01", "0.49", "0.51", "", ""), 0.49, 0.51},
		{"one side empty: nothing", book("0.01", "0.49", "", "", ""), 0, 0},
		{"own orders are not the touch", withOwn(book("0.01", "0.45", "0.55", "", ""),
			[]OpenOrder{open("b", Yes, exchange.Buy, "0.5", "10")}), 0.46, 0.54},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := m.Quote(nil, c.s, nil)
			if c.bid == 0 {
				if len(got) != 0 {
					t.Fatalf("quotes %+v, want none", got)
				}
				return
			}
			if len(got) != 2 {
				t.Fatalf("quotes %+v, want a bid and an ask", got)
			}
			bid, ask := got[0], got[1]
			if bid.Outcome != Yes || bid.Side != exchange.Buy || math.Abs(bid.Price-c.bid) > 1e-4 || bid.Size != 10 {
				t.Errorf("bid %+v, want BUY YES %v × 10", bid, c.bid)
			}
			if ask.Outcome != No || ask.Side != exchange.Buy || math.Abs((1-ask.Price)-c.ask) > 1e-4 || ask.Size != 10 {
				t.Errorf("ask %+v, want BUY NO at 1 − %v × 10", ask, c.ask)
			}
		})
	}
	if _, err := NewNaive(NaiveParams{}); err == nil {
		t.Fatal("size 0: no error")
	}
}

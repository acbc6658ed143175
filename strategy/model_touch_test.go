package strategy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// yesQuotes returns the YES-space bid and ask of a one-level model's
// BUY-only quotes (0 when a side is missing).
func yesQuotes(t *testing.T, got []Desired) (bid, ask float64) {
	t.Helper()
	for _, d := range got {
		switch {
		case d.Side != exchange.Buy:
			t.Fatalf("a SELL quote %+v from a BUY-only model", d)
		case d.Outcome == Yes:
			bid = d.Price
		default:
			ask = 1 - d.Price
		}
	}
	return bid, ask
}

func TestTouchQuotesAndSkew(t *testing.T) {
	m, err := NewTouch(TouchParams{Size: 10, SkewShares: 20, MaxSkewTicks: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		s        *Snapshot
		net      float64 // YES − NO shares held
		bid, ask float64 // YES space; 0: no quote
	}{
		{"flat: one tick inside", book("0.01", "0.45", "0.55", "", ""), 0, 0.46, 0.54},
		{"flat: two ticks wide, join", book("0.01", "0.49", "0.51", "", ""), 0, 0.49, 0.51},
		{"long less than a unit: no skew", book("0.01", "0.45", "0.55", "", ""), 19, 0.46, 0.54},
		{"long one unit: the bid steps back a tick", book("0.01", "0.45", "0.55", "", ""), 20, 0.45, 0.54},
		{"long two units", book("0.01", "0.45", "0.55", "", ""), 45, 0.44, 0.54},
		{"long far: capped at 3 ticks", book("0.01", "0.45", "0.55", "", ""), 500, 0.43, 0.54},
		{"short one unit: the ask steps back", book("0.01", "0.45", "0.55", "", ""), -20, 0.46, 0.55},
		{"fine tick", book("0.001", "0.450", "0.452", "", ""), -40, 0.450, 0.454},
		{"one side empty: nothing", book("0.01", "0.49", "", "", ""), 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.net > 0 {
				c.s.Position[Yes] = decimal.NewFromFloat(c.net)
			} else {
				c.s.Position[No] = decimal.NewFromFloat(-c.net)
			}
			got := m.Quote(nil, c.s, nil)
			if c.bid == 0 {
				if len(got) != 0 {
					t.Fatalf("quotes %+v, want none", got)
				}
				return
			}
			bid, ask := yesQuotes(t, got)
			if math.Abs(bid-c.bid) > 1e-4 || math.Abs(ask-c.ask) > 1e-4 {
				t.Fatalf("bid %v ask %v, want %v %v", bid, ask, c.bid, c.ask)
			}
			for _, d := range got {
				if d.Size != 10 {
					t.Errorf("size %v, want 10", d.Size)
				}
			}
		})
	}
	for _, p := range []TouchParams{{}, {Size: -1}, {Size: 10, SkewShares: -1}, {Size: 10, MaxSkewTicks: -1}, {Size: 10, SkewShares: math.Inf(1)}} {
		if _, err := NewTouch(p); err == nil {
			t.Errorf("NewTouch(%+v): no error", p)
		}
	}
}

// Property: on any two-sided book and any position, the touch model's bid
// lies below its ask, never above the best bid of others plus a tick nor
// at or above their best ask (it never crosses the book), and the skew
// only ever moves the side that would add to the position.
func TestTouchProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ticks := []string{"0.1", "0.01", "0.001", "0.0001"}
	m, err := NewTouch(TouchParams{Size: 5})
	if err != nil {
		t.Fatal(err)
	}
	flat, err := NewTouch(TouchParams{Size: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5000; i++ {
		ts := ticks[r.IntN(len(ticks))]
		tick, _ := decimal.NewFromString(ts)
		n := int64(decimal.NewFromInt(1).Div(tick).IntPart())
		bi := 1 + r.Int64N(n-2)
		ai := bi + 1 + r.Int64N(min(n-1-bi, 20))
		bidS, askS := tick.Mul(decimal.NewFromInt(bi)).String(), tick.Mul(decimal.NewFromInt(ai)).String()
		s := book(ts, bidS, askS, "", "")
		s0 := book(ts, bidS, askS, "", "")
		net := math.Round((r.Float64()*2-1)*200*100) / 100
		if net > 0 {
			s.Position[Yes] = decimal.NewFromFloat(net)
		} else {
			s.Position[No] = decimal.NewFromFloat(-net)
		}
		got := m.Quote(nil, s, nil)
		ref := flat.Quote(nil, s0, nil)
		if len(got) != 2 || len(ref) != 2 {
			continue // a side off the grid
		}
		bid, ask := yesQuotes(t, got)
		rb, ra := yesQuotes(t, ref)
		tk := tick.InexactFloat64()
		ob, oa := tick.Mul(decimal.NewFromInt(bi)).InexactFloat64(), tick.Mul(decimal.NewFromInt(ai)).InexactFloat64()
		switch {
		case !(bid < ask):
			t.Fatalf("book %s/%s tick %s net %v: bid %v not below ask %v", bidS, askS, ts, net, bid, ask)
		case bid > ob+tk+tk/100 || bid >= oa-tk/100 || ask < oa-tk-tk/100 || ask <= ob+tk/100: // the model's ε is a thousandth of a tick
			t.Fatalf("book %s/%s tick %s net %v: quotes %v/%v cross or leave the touch", bidS, askS, ts, net, bid, ask)
		case net > 0 && (bid > rb+1e-9 || math.Abs(ask-ra) > 1e-9), net < 0 && (ask < ra-1e-9 || math.Abs(bid-rb) > 1e-9):
			t.Fatalf("book %s/%s net %v: skewed %v/%v against flat %v/%v", bidS, askS, net, bid, ask, rb, ra)
		}
	}
}

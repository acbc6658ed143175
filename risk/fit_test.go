package risk

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// sizeReason reports whether r is one of the checks Fit accounts for.
func sizeReason(r Reason) bool {
	switch r {
	case ReasonOrderSize, ReasonOrderNotional, ReasonSellExceedsPosition, ReasonMarketShares, ReasonTotalShares,
		ReasonMarketAtRisk, ReasonTotalAtRisk:
		return true
	}
	return false
}

func TestFit(t *testing.T) {
	c, err := NewChecker(Limits{MaxMarketShares: d("100"), MaxTotalAtRisk: d("50"), MaxOrderSize: d("40")})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    Order
		e    Exposure
		size string
		why  Reason
	}{
		{"fits whole", ord(Yes, exchange.Buy, "0.5", "10"), Exposure{Fair: 0.5}, "10", 0},
		{"order size", ord(Yes, exchange.Buy, "0.5", "45"), Exposure{Fair: 0.5}, "40", ReasonOrderSize},
		// 50 collateral, 30 of it in the position (60 YES at 0.5): 20 left, 40 shares at 0.5, then
		// the shares limit (100 − 60 = 40) binds equally; the order size limit binds first.
		{"at risk", ord(Yes, exchange.Buy, "0.6", "40"), Exposure{Fair: 0.5, Position: [2]decimal.Decimal{d("60"), d("0")}},
			"33.333333", ReasonTotalAtRisk},
		{"market shares", ord(Yes, exchange.Buy, "0.1", "40"), Exposure{Fair: 0.1, Position: [2]decimal.Decimal{d("80"), d("0")}},
			"20", ReasonMarketShares},
		// Long 80 YES: a BUY NO of up to 80 only unwinds, whatever the collateral.
		{"unwinding buy", ord(No, exchange.Buy, "0.5", "40"), Exposure{Fair: 0.9, Position: [2]decimal.Decimal{d("80"), d("0")},
			Others: Totals{AtRisk: d("50")}}, "40", 0},
		{"sell held", ord(Yes, exchange.Sell, "0.5", "30"), Exposure{Fair: 0.5, Position: [2]decimal.Decimal{d("25"), d("0")},
			Open: []Order{ord(Yes, exchange.Sell, "0.6", "5")}}, "20", ReasonSellExceedsPosition},
		{"sell nothing held", ord(No, exchange.Sell, "0.5", "30"), Exposure{Fair: 0.5}, "0", ReasonSellExceedsPosition},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, why := c.Fit(tc.o, &tc.e)
			if !got.Equal(d(tc.size)) || why != tc.why {
				t.Fatalf("Fit = %s, %v; want %s, %v", got, why, tc.size, tc.why)
			}
		})
	}
}

// TestFitProperty checks Fit against Check on random exposures: the fitted
// size passes every size-dependent check, and one base unit more (when the
// order was cut) fails one of them.
func TestFitProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dec := func(lo, hi float64, places int32) decimal.Decimal {
		return decimal.NewFromFloat(lo + (hi-lo)*r.Float64()).Truncate(places)
	}
	orderOf := func() Order {
		sd := exchange.Buy
		if r.IntN(2) == 0 {
			sd = exchange.Sell
		}
		return Order{Outcome: r.IntN(2), Side: sd, Price: dec(0.01, 0.99, 2), Size: dec(0.01, 80, 2)}
	}
	opt := func(lo, hi float64) decimal.Decimal {
		if r.IntN(4) == 0 {
			return decimal.Zero
		}
		return dec(lo, hi, 2)
	}
	var cut int
	for i := range 20000 {
		lim := Limits{MaxMarketShares: opt(1, 200), MaxTotalShares: opt(1, 400), MaxMarketAtRisk: opt(1, 100),
			MaxTotalAtRisk: opt(1, 200), MaxOrderSize: opt(1, 100), MaxOrderNotional: opt(1, 50)}
		c, err := NewChecker(lim)
		if err != nil {
			t.Fatal(err)
		}
		e := Exposure{Fair: r.Float64(), Position: [2]decimal.Decimal{dec(0, 100, 2), dec(0, 100, 2)},
			Others: Totals{Shares: dec(0, 300, 2), AtRisk: dec(0, 150, 2)}}
		for range r.IntN(5) {
			e.Open = append(e.Open, orderOf())
		}
		o := orderOf()
		size, why := c.Fit(o, &e)
		if size.GreaterThan(o.Size) || size.IsNegative() {
			t.Fatalf("case %d: Fit(%s) = %s", i, o, size)
		}
		if (why == 0) != size.Equal(o.Size) {
			t.Fatalf("case %d: Fit(%s) = %s, %v: a reason exactly when cut", i, o, size, why)
		}
		if size.IsPositive() {
			fo := o
			fo.Size = size
			if rej := rejection(c.Check(fo, &e)); rej != nil && sizeReason(rej.Reason) {
				t.Fatalf("case %d: fitted %s refused: %v (limits %+v, exposure %+v)", i, fo, rej, lim, e)
			}
		}
		// A Fitter that counted the fitted order sees what Fit sees with the
		// order open.
		if size.IsPositive() {
			f := c.Fitter(&e)
			f.Add(o.Outcome, o.Side, round(o.Price, up), round(size, up))
			e2 := e
			e2.Open = append(append([]Order(nil), e.Open...), Order{Outcome: o.Outcome, Side: o.Side, Price: o.Price, Size: size})
			o2 := orderOf()
			s1, w1 := f.Fit(o2.Outcome, o2.Side, round(o2.Price, up), round(o2.Size, up))
			s2, w2 := c.Fit(o2, &e2)
			if !s1.Decimal().Equal(s2) || w1 != w2 {
				t.Fatalf("case %d: Fitter after Add %s, %v; Fit with the order open %s, %v", i, s1.Decimal(), w1, s2, w2)
			}
		}
		if why != 0 {
			cut++
			mo := o
			mo.Size = size.Add(decimal.New(1, -6))
			rej := rejection(c.Check(mo, &e))
			if rej != nil && rej.Reason == ReasonSelfCross {
				continue // checked before the size checks: says nothing about them
			}
			if rej == nil || !sizeReason(rej.Reason) {
				t.Fatalf("case %d: %s one unit above the fit passes the size checks: %v", i, mo, rej)
			}
		}
	}
	if cut < 1000 {
		t.Fatalf("only %d of the cases were cut: the generator misses the limits", cut)
	}
}

func rejection(err error) *Rejection {
	var r *Rejection
	if errors.As(err, &r) {
		return r
	}
	return nil
}

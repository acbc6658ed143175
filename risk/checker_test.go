package risk

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func ord(outcome int, side exchange.Side, price, size string) Order {
	return Order{Outcome: outcome, Side: side, Price: d(price), Size: d(size)}
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func testLimits() Limits {
	return Limits{
		MaxMarketShares:  d("100"),
		MaxTotalShares:   d("300"),
		MaxMarketAtRisk:  d("60"),
		MaxTotalAtRisk:   d("200"),
		MaxOrderSize:     d("50"),
		MaxOrderNotional: d("20"),
		MaxOpenPerMarket: 4,
		MaxOpenTotal:     10,
		Collar:           d("0.10"),
		FillCooldown:     5 * time.Second,
	}
}

func TestCheck(t *testing.T) {
	base := func() Exposure { return Exposure{Fair: 0.5, Now: t0} }
	cases := []struct {
		name string
		o    Order
		e    func() Exposure
		want Reason // 0 = accepted
	}{
		{"plain bid", ord(Yes, exchange.Buy, "0.48", "20"), base, 0},
		{"plain NO bid", ord(No, exchange.Buy, "0.48", "20"), base, 0},
		{"bad outcome", ord(2, exchange.Buy, "0.48", "20"), base, ReasonInvalidOrder},
		{"bad side", Order{Outcome: Yes, Side: "HOLD", Price: d("0.4"), Size: d("1")}, base, ReasonInvalidOrder},
		{"price 0", ord(Yes, exchange.Buy, "0", "1"), base, ReasonInvalidOrder},
		{"price 1", ord(Yes, exchange.Buy, "1", "1"), base, ReasonInvalidOrder},
		{"size 0", ord(Yes, exchange.Buy, "0.5", "0"), base, ReasonInvalidOrder},
		{"size negative", ord(Yes, exchange.Buy, "0.5", "-1"), base, ReasonInvalidOrder},
		{"size at limit", ord(Yes, exchange.Buy, "0.40", "50"), base, 0},
		{"size over limit", ord(Yes, exchange.Buy, "0.40", "50.01"), base, ReasonOrderSize},
		// 0.45 × 45 = 20.25 > 20
		{"notional over", ord(Yes, exchange.Buy, "0.45", "45"), base, ReasonOrderNotional},
		{"cooldown same side", ord(Yes, exchange.Buy, "0.48", "10"), func() Exposure {
			e := base()
			e.LastFill[Yes][0] = t0.Add(-4 * time.Second)
			return e
		}, ReasonCooldown},
		{"cooldown over", ord(Yes, exchange.Buy, "0.48", "10"), func() Exposure {
			e := base()
			e.LastFill[Yes][0] = t0.Add(-5 * time.Second)
			return e
		}, 0},
		{"cooldown other side", ord(No, exchange.Buy, "0.48", "10"), func() Exposure {
			e := base()
			e.LastFill[Yes][0] = t0.Add(-time.Second)
			return e
		}, 0},
		{"no fair", ord(Yes, exchange.Buy, "0.48", "10"), func() Exposure { e := base(); e.Fair = math.NaN(); return e }, ReasonNoFairValue},
		{"collar edge", ord(Yes, exchange.Buy, "0.40", "10"), base, 0},
		{"collar over", ord(Yes, exchange.Buy, "0.39", "10"), base, ReasonCollar},
		// NO fair is 1−0.7 = 0.3; a NO bid at 0.45 is 0.15 away.
		{"collar NO side", ord(No, exchange.Buy, "0.45", "10"), func() Exposure { e := base(); e.Fair = 0.7; return e }, ReasonCollar},
		{"self-cross same token", ord(Yes, exchange.Buy, "0.50", "10"), func() Exposure {
			e := base()
			e.Position[Yes] = d("20")
			e.Open = []Order{ord(Yes, exchange.Sell, "0.50", "10")}
			return e
		}, ReasonSelfCross},
		{"no cross same token", ord(Yes, exchange.Buy, "0.49", "10"), func() Exposure {
			e := base()
			e.Position[Yes] = d("20")
			e.Open = []Order{ord(Yes, exchange.Sell, "0.50", "10")}
			return e
		}, 0},
		// BUY YES 0.52 + BUY NO 0.48 = 1.00: a guaranteed loss.
		{"self-cross complement", ord(Yes, exchange.Buy, "0.52", "10"), func() Exposure {
			e := base()
			e.Open = []Order{ord(No, exchange.Buy, "0.48", "10")}
			return e
		}, ReasonSelfCross},
		{"complement below 1", ord(Yes, exchange.Buy, "0.51", "10"), func() Exposure {
			e := base()
			e.Open = []Order{ord(No, exchange.Buy, "0.48", "10")}
			return e
		}, 0},
		// SELL YES 0.45 + SELL NO 0.55 = 1.00: a SELL NO at 0.55 is a YES bid at 0.45.
		{"self-cross two sells", ord(Yes, exchange.Sell, "0.45", "10"), func() Exposure {
			e := base()
			e.Position = [2]decimal.Decimal{d("10"), d("10")}
			e.Open = []Order{ord(No, exchange.Sell, "0.55", "10")}
			return e
		}, ReasonSelfCross},
		{"sell without position", ord(Yes, exchange.Sell, "0.55", "10"), base, ReasonSellExceedsPosition},
		{"sell beyond offered", ord(Yes, exchange.Sell, "0.56", "10"), func() Exposure {
			e := base()
			e.Position[Yes] = d("15")
			e.Open = []Order{ord(Yes, exchange.Sell, "0.57", "10")}
			return e
		}, ReasonSellExceedsPosition},
		{"sell within position", ord(Yes, exchange.Sell, "0.55", "10"), func() Exposure { e := base(); e.Position[Yes] = d("10"); return e }, 0},
		{"market open orders", ord(Yes, exchange.Buy, "0.45", "1"), func() Exposure {
			e := base()
			e.Open = []Order{ord(Yes, exchange.Buy, "0.44", "1"), ord(Yes, exchange.Buy, "0.43", "1"), ord(Yes, exchange.Buy, "0.42", "1"), ord(Yes, exchange.Buy, "0.41", "1")}
			return e
		}, ReasonMarketOpenOrders},
		{"total open orders", ord(Yes, exchange.Buy, "0.45", "1"), func() Exposure { e := base(); e.Others.Open = 10; return e }, ReasonTotalOpenOrders},
		// long 90 YES; a 20-share YES bid makes the worst case 110 > 100.
		{"market shares", ord(Yes, exchange.Buy, "0.45", "20"), func() Exposure { e := base(); e.Position[Yes] = d("90"); return e }, ReasonMarketShares},
		// The same position: a NO bid reduces it and passes.
		{"reducing passes", ord(No, exchange.Buy, "0.45", "20"), func() Exposure { e := base(); e.Position[Yes] = d("90"); return e }, 0},
		// Already over the limit: reducing still passes.
		{"over limit, reducing", ord(No, exchange.Buy, "0.45", "20"), func() Exposure { e := base(); e.Position[Yes] = d("500"); return e }, 0},
		{"total shares", ord(Yes, exchange.Buy, "0.45", "20"), func() Exposure { e := base(); e.Others.Shares = d("290"); return e }, ReasonTotalShares},
		// At risk: 70 NO marked at 1−0.2 = 0.8 is 56, plus 0.75×20 = 15: 71 > 60.
		{"market at risk", ord(No, exchange.Buy, "0.75", "20"), func() Exposure {
			e := base()
			e.Fair = 0.2
			e.Position[No] = d("70")
			return e
		}, ReasonMarketAtRisk},
		// Paired shares are not at risk: 70 YES + 70 NO is 70 riskless pairs.
		{"pairs not at risk", ord(No, exchange.Buy, "0.75", "20"), func() Exposure {
			e := base()
			e.Fair = 0.2
			e.Position = [2]decimal.Decimal{d("70"), d("70")}
			return e
		}, 0},
		{"total at risk", ord(Yes, exchange.Buy, "0.45", "10"), func() Exposure { e := base(); e.Others.AtRisk = d("196"); return e }, ReasonTotalAtRisk},
	}
	c, err := NewChecker(testLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e()
			openBefore := len(e.Open)
			err := c.Check(tc.o, &e)
			if len(e.Open) != openBefore {
				t.Fatal("Check modified the exposure")
			}
			if tc.want == 0 {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var r *Rejection
			if !errors.As(err, &r) || !errors.Is(err, ErrRejected) {
				t.Fatalf("err = %v, want a *Rejection", err)
			}
			if r.Reason != tc.want {
				t.Fatalf("reason %s, want %s (%v)", r.Reason, tc.want, err)
			}
			if r.Detail == "" || r.Reason.String() == "" {
				t.Fatal("empty detail")
			}
		})
	}
}

func TestZeroLimitsAcceptEverythingValid(t *testing.T) {
	c, err := NewChecker(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	e := Exposure{Fair: math.NaN(), Others: Totals{Open: 1e6}}
	if err := c.Check(ord(Yes, exchange.Buy, "0.99", "1000000"), &e); err != nil {
		t.Fatal(err)
	}
}

func TestFilterAccumulates(t *testing.T) {
	c, err := NewChecker(testLimits())
	if err != nil {
		t.Fatal(err)
	}
	e := Exposure{Fair: 0.5, Now: t0}
	orders := []Order{
		ord(Yes, exchange.Buy, "0.48", "40"),
		ord(Yes, exchange.Buy, "0.47", "40"),
		ord(Yes, exchange.Buy, "0.46", "40"), // worst case 120 > 100
		ord(No, exchange.Buy, "0.52", "10"),  // crosses the YES bid at 0.48 (0.48+0.52 = 1)
		ord(No, exchange.Buy, "0.50", "10"),
	}
	acc, rej := c.Filter(orders, &e)
	if len(acc) != 3 || len(rej) != 2 {
		t.Fatalf("accepted %v rejected %v", acc, rej)
	}
	if rej[0].Reason != ReasonMarketShares || rej[1].Reason != ReasonSelfCross {
		t.Fatalf("reasons %s %s", rej[0].Reason, rej[1].Reason)
	}
	if len(e.Open) != 3 {
		t.Fatalf("exposure has %d open orders, want 3", len(e.Open))
	}
}

func TestMarketTotals(t *testing.T) {
	open := []Order{ord(Yes, exchange.Buy, "0.40", "10"), ord(No, exchange.Buy, "0.50", "30"), ord(Yes, exchange.Sell, "0.70", "5")}
	got := MarketTotals(0.6, [2]decimal.Decimal{d("20"), d("0")}, open)
	// longYes = 20 + 10 = 30; longNo = −20 + 30 + 5 = 15 → 30.
	// at risk = 20×0.6 + 0.4×10 + 0.5×30 = 12 + 4 + 15 = 31.
	if !got.Shares.Equal(d("30")) || !got.AtRisk.Equal(d("31")) || got.Open != 3 {
		t.Fatalf("got %+v", got)
	}
	if sum := got.Add(got); !sum.Shares.Equal(d("60")) || sum.Open != 6 {
		t.Fatalf("Add: %+v", sum)
	}
	// Unknown fair marks positions at 1.
	if g := MarketTotals(math.NaN(), [2]decimal.Decimal{d("20"), d("0")}, nil); !g.AtRisk.Equal(d("20")) {
		t.Fatalf("unknown fair: %+v", g)
	}
}

func TestLimitsValidate(t *testing.T) {
	cases := []struct {
		name  string
		mod   func(*Limits)
		field string
	}{
		{"negative shares", func(l *Limits) { l.MaxMarketShares = d("-1") }, "MaxMarketShares"},
		{"collar 1", func(l *Limits) { l.Collar = d("1") }, "Collar"},
		{"tiny", func(l *Limits) { l.MaxOrderSize = d("0.0000001") }, "MaxOrderSize"},
		{"open", func(l *Limits) { l.MaxOpenTotal = -1 }, "MaxOpenTotal"},
		{"cooldown", func(l *Limits) { l.FillCooldown = -time.Second }, "FillCooldown"},
	}
	for _, c := range cases {
		l := testLimits()
		c.mod(&l)
		err := l.Validate()
		if err == nil || !contains(err.Error(), c.field) {
			t.Errorf("%s: err %v, want one naming %s", c.name, err, c.field)
		}
		if _, err := NewChecker(l); err == nil {
			t.Errorf("%s: NewChecker accepted", c.name)
		}
	}
	if err := testLimits().Validate(); err != nil {
		t.Fatal(err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestReasonStrings(t *testing.T) {
	seen := map[string]bool{}
	for r := Reason(1); r < reasonEnd; r++ {
		s := r.String()
		if s == "" || seen[s] {
			t.Fatalf("reason %d: %q", r, s)
		}
		seen[s] = true
	}
	if Reason(200).String() != "reason(200)" {
		t.Fatal(Reason(200).String())
	}
}

// FuzzCheck: no input panics, and an accepted order honours the limits it
// can be checked against directly.
func FuzzCheck(f *testing.F) {
	f.Add(0, true, "0.48", "20", "0", "0", 0.5)
	f.Add(1, false, "0.55", "10", "10", "5", 0.3)
	f.Add(3, true, "-1", "1e30", "x", "", math.NaN())
	c, err := NewChecker(testLimits())
	if err != nil {
		f.Fatal(err)
	}
	lim := testLimits()
	f.Fuzz(func(t *testing.T, outcome int, buy bool, price, size, posY, posN string, fair float64) {
		side := exchange.Sell
		if buy {
			side = exchange.Buy
		}
		p, err1 := decimal.NewFromString(price)
		s, err2 := decimal.NewFromString(size)
		if err1 != nil || err2 != nil || p.Exponent() < -40 || s.Exponent() < -40 || p.Exponent() > 40 || s.Exponent() > 40 {
			return
		}
		py, _ := decimal.NewFromString(posY)
		pn, _ := decimal.NewFromString(posN)
		e := Exposure{Fair: fair, Now: t0, Position: [2]decimal.Decimal{py, pn}}
		o := Order{Outcome: outcome, Side: side, Price: p, Size: s}
		if err := c.Check(o, &e); err == nil {
			if s.GreaterThan(lim.MaxOrderSize) || p.Mul(s).GreaterThan(lim.MaxOrderNotional) || !p.IsPositive() || p.GreaterThanOrEqual(decimal.NewFromInt(1)) {
				t.Fatalf("accepted %v", o)
			}
			_ = o.String()
		}
	})
}

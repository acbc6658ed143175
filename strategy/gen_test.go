package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

var ticks = []string{"0.1", "0.05", "0.01", "0.005", "0.001", "0.0001"}

// onGrid returns n ticks of tick as a decimal.
func onGrid(tick decimal.Decimal, n int64) decimal.Decimal { return tick.Mul(decimal.NewFromInt(n)) }

// genBook returns a random snapshot of the others' books (no orders of
// ours) around a random fair value.
func genBook(r *rand.Rand) (*Snapshot, float64) {
	tick := d(ticks[r.IntN(len(ticks))])
	T := decimal.NewFromInt(1).Div(tick).IntPart()
	fair := 0.02 + 0.96*r.Float64()
	if r.IntN(8) == 0 {
		fair = r.Float64()
	}
	s := &Snapshot{ConditionID: "0xc", Tick: tick, Now: t0,
		MinSize: []decimal.Decimal{d("0.5"), d("1"), d("5"), d("10")}[r.IntN(4)]}
	s.Tokens[Yes].TokenID, s.Tokens[No].TokenID = "Y", "N"
	side := func(center float64, dir int64) []exchange.PriceLevel {
		if r.IntN(6) == 0 {
			return nil
		}
		n := int64(math.Round(center*float64(T))) + dir*int64(1+r.IntN(4))
		var lv []exchange.PriceLevel
		for range 1 + r.IntN(3) {
			if n < 1 || n > T-1 {
				break
			}
			lv = append(lv, exchange.PriceLevel{Price: onGrid(tick, n), Size: decimal.New(int64(100+r.IntN(50000)), -2)})
			n += dir * int64(1+r.IntN(3))
		}
		return lv
	}
	s.Tokens[Yes].Bids, s.Tokens[Yes].Asks = side(fair, -1), side(fair, 1)
	noCenter := 1 - fair + float64(r.IntN(5)-2)/float64(T)
	s.Tokens[No].Bids, s.Tokens[No].Asks = side(noCenter, -1), side(noCenter, 1)
	s.Position = [2]decimal.Decimal{decimal.New(int64(r.IntN(3)*r.IntN(20000)), -2), decimal.New(int64(r.IntN(3)*r.IntN(20000)), -2)}
	if r.IntN(3) == 0 {
		s.Rewards = RewardTerms{MinSize: decimal.NewFromInt(int64(r.IntN(100))), MaxSpread: decimal.NewFromInt(int64(1 + r.IntN(5))), DailyRate: d("50")}
	}
	if r.IntN(3) == 0 {
		s.EndDate = t0.Add(time.Duration(r.IntN(72)) * time.Hour)
	}
	return s, fair
}

// genOpen returns random open orders of ours: mostly on the grid near fair,
// some off the grid, some with an unknown outcome.
func genOpen(r *rand.Rand, s *Snapshot, fair float64) []OpenOrder {
	T := decimal.NewFromInt(1).Div(s.Tick).IntPart()
	var out []OpenOrder
	for i := range r.IntN(7) {
		o := Outcome(r.IntN(2))
		side := exchange.Buy
		if r.IntN(4) == 0 {
			side = exchange.Sell
		}
		c := toYes(o, fair)
		n := min(max(int64(math.Round(c*float64(T)))+int64(r.IntN(9)-4), 1), T-1)
		price := onGrid(s.Tick, n)
		if r.IntN(6) == 0 {
			price = price.Add(s.Tick.Div(decimal.NewFromInt(3))).Round(8)
		}
		if r.IntN(20) == 0 {
			o = 9
		}
		out = append(out, OpenOrder{ID: fmt.Sprintf("o%d", i), Outcome: o, Side: side, Price: price, Size: decimal.New(int64(1+r.IntN(3000)), -2)})
	}
	return out
}

// genDesired returns random desired quotes around fair, garbage included.
func genDesired(r *rand.Rand, fair float64) []Desired {
	var out []Desired
	for i := range r.IntN(11) {
		o := Outcome(r.IntN(2))
		side := exchange.Buy
		if r.IntN(4) == 0 {
			side = exchange.Sell
		}
		p := toYes(o, fair) + (r.Float64()-0.5)*0.2
		sz := r.Float64() * 40
		switch r.IntN(30) {
		case 0:
			p = math.NaN()
		case 1:
			p = -0.3
		case 2:
			p = 1.7
		case 3:
			sz = -1
		case 4:
			sz = math.Inf(1)
		}
		out = append(out, Desired{Outcome: o, Side: side, Price: p, Size: sz, Level: i / 2})
	}
	return out
}

func genTolerance(r *rand.Rand) Tolerance {
	return Tolerance{PriceTicks: r.IntN(3), SizeFrac: []float64{0, 0.05, 0.2, 1}[r.IntN(4)]}
}

// exOwnBest returns, in exact decimals, the others' best bid and ask of
// token o (our open orders taken out); ok false when the side is empty.
func exOwnBest(s *Snapshot, o Outcome) (bid, ask decimal.Decimal, hasBid, hasAsk bool) {
	best := func(levels []exchange.PriceLevel, side exchange.Side) (decimal.Decimal, bool) {
		for _, l := range levels {
			sz := l.Size
			for _, oo := range s.Open {
				if oo.Outcome == o && oo.Side == side && oo.Price.Equal(l.Price) {
					sz = sz.Sub(oo.Size)
				}
			}
			if sz.IsPositive() {
				return l.Price, true
			}
		}
		return decimal.Decimal{}, false
	}
	bid, hasBid = best(s.Tokens[o].Bids, exchange.Buy)
	ask, hasAsk = best(s.Tokens[o].Asks, exchange.Sell)
	return
}

var one = decimal.NewFromInt(1)

// yesSpace maps an order to YES space, exactly.
func yesSpace(o Outcome, p decimal.Decimal) decimal.Decimal {
	if o == No {
		return one.Sub(p)
	}
	return p
}

// checkPlaces asserts what every planned order must satisfy on its own.
func checkPlaces(t *testing.T, s *Snapshot, places []Order) {
	t.Helper()
	tick := s.Tick
	ybid, yask, hyb, hya := exOwnBest(s, Yes)
	nbid, nask, hnb, hna := exOwnBest(s, No)
	for _, o := range places {
		switch {
		case !o.Price.Mod(tick).IsZero():
			t.Fatalf("%v off the %s grid", o, tick)
		case o.Price.LessThan(tick) || o.Price.GreaterThan(one.Sub(tick)):
			t.Fatalf("%v outside [tick, 1−tick]", o)
		case o.Size.LessThan(s.MinSize) || !o.Size.IsPositive():
			t.Fatalf("%v below the minimum size %s", o, s.MinSize)
		case !o.Size.Shift(2).Equal(o.Size.Shift(2).Floor()):
			t.Fatalf("%v size has more than 2 decimals", o)
		case o.TokenID != s.Tokens[o.Outcome].TokenID:
			t.Fatalf("%v has token %q", o, o.TokenID)
		}
		y := yesSpace(o.Outcome, o.Price)
		if bidLike(o.Outcome, o.Side) {
			if hya && y.GreaterThanOrEqual(yask) || hnb && y.GreaterThanOrEqual(one.Sub(nbid)) {
				t.Fatalf("%v (YES-space bid %s) crosses the book: YES ask %s, NO bid %s", o, y, yask, nbid)
			}
		} else if hyb && y.LessThanOrEqual(ybid) || hna && y.LessThanOrEqual(one.Sub(nask)) {
			t.Fatalf("%v (YES-space ask %s) crosses the book: YES bid %s, NO ask %s", o, y, ybid, nask)
		}
	}
}

// checkNoSelfCross asserts that no bid of ours sits at or above an ask of
// ours in YES space, and that YES bid + NO bid ≤ 1 − tick on the grid.
func checkNoSelfCross(t *testing.T, tick decimal.Decimal, rest []OpenOrder) {
	t.Helper()
	for _, a := range rest {
		for _, b := range rest {
			if !a.Outcome.Valid() || !b.Outcome.Valid() || !bidLike(a.Outcome, a.Side) || bidLike(b.Outcome, b.Side) {
				continue
			}
			if yesSpace(a.Outcome, a.Price).GreaterThanOrEqual(yesSpace(b.Outcome, b.Price)) {
				t.Fatalf("self-cross: bid %+v, ask %+v", a, b)
			}
			if a.Outcome == Yes && b.Outcome == No && a.Side == exchange.Buy && b.Side == exchange.Buy &&
				a.Price.Mod(tick).IsZero() && b.Price.Mod(tick).IsZero() && a.Price.Add(b.Price).GreaterThan(one.Sub(tick)) {
				t.Fatalf("YES bid %s + NO bid %s > 1 − tick", a.Price, b.Price)
			}
		}
	}
}

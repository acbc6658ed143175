package strategy

import (
	"math"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// boundarySeeds are the float inputs of TestPlan's rounding cases.
var boundarySeeds = []struct {
	price, size float64
	sell, no    bool
	tick        uint8 // index into ticks
}{
	{0.4999, 10.456, false, false, 2},
	{0.4801, 7, false, true, 2},
	{0.5301, 6, true, false, 2},
	{0.29, 5, false, false, 2},
	{0.57, 5, false, true, 2},
	{4.999, 4.999, false, false, 2},
	{0.48, 5.009, false, false, 2},
	{0.0001, 5, false, false, 2},
	{1.2, 5, false, false, 2},
	{-1, 5, true, false, 2},
	{0.9537, 12.3, false, false, 4},
	{0.0419, 5, false, true, 4},
	{0.47, 5, false, false, 0},
	{0.7355, 100.005, true, true, 1},
	{0.12345, 3.33, false, false, 5},
	{math.NaN(), 5, false, false, 2},
	{0.5, math.Inf(1), false, false, 2},
}

// FuzzPlanBoundary hammers the float → decimal boundary with one quote on an
// empty book: the order must be exactly on the grid, rounded the right way
// by less than a tick (or clamped to the bounds), its size rounded down by
// less than a hundredth.
func FuzzPlanBoundary(f *testing.F) {
	for _, s := range boundarySeeds {
		f.Add(s.price, s.size, s.sell, s.no, s.tick)
	}
	f.Fuzz(func(t *testing.T, price, sz float64, sell, no bool, tickIdx uint8) {
		tick := d(ticks[int(tickIdx)%len(ticks)])
		s := &Snapshot{Tick: tick, MinSize: d("1"), Now: t0}
		side, o := exchange.Buy, Yes
		if sell {
			side = exchange.Sell
		}
		if no {
			o = No
		}
		var p Planner
		plan, err := p.Plan([]Desired{{Outcome: o, Side: side, Price: price, Size: sz}}, s, Tolerance{}, Unlimited())
		if err != nil {
			t.Fatal(err)
		}
		tf := tick.InexactFloat64()
		valid := !math.IsNaN(price) && !math.IsInf(price, 0) && sz >= 1 && sz <= maxSize
		canPlace := valid && (side == exchange.Buy && price >= tf*(1+1e-6) || side == exchange.Sell && price <= 1-tf*(1+1e-6))
		if len(plan.Places) == 0 {
			if canPlace {
				t.Fatalf("%v %s %v×%v on %s: nothing placed", o, side, price, sz, tick)
			}
			return
		}
		if !valid || len(plan.Places) != 1 {
			t.Fatalf("placed %+v from %v×%v", plan.Places, price, sz)
		}
		got := plan.Places[0]
		checkPlaces(t, s, plan.Places)
		gp, gs := got.Price.InexactFloat64(), got.Size.InexactFloat64()
		lo, hi := tf, 1-tf
		slack := tf * 1e-6
		if side == exchange.Buy {
			want := math.Min(price, hi)
			if gp > want+slack || gp <= want-tf-slack {
				t.Fatalf("BUY %v → %s: not rounded down by less than a tick (%s)", price, got.Price, tick)
			}
		} else {
			want := math.Max(price, lo)
			if gp < want-slack || gp >= want+tf+slack {
				t.Fatalf("SELL %v → %s: not rounded up by less than a tick (%s)", price, got.Price, tick)
			}
		}
		if gs > sz+1e-9 || gs <= sz-0.01-1e-9 {
			t.Fatalf("size %v → %s", sz, got.Size)
		}
		if got.Size.Exponent() < -2 || got.Price.Exponent() < tick.Exponent() {
			t.Fatalf("too many decimals: %s @ %s", got.Size, got.Price)
		}
	})
}

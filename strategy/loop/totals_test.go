package loop

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// TestTotalsMemo checks the memo of a market's totals against measuring
// them each time, as the fair value, the position, the orders and their
// fills change or stay, and that it answers the unchanged ones.
func TestTotalsMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	dec := func(max int) decimal.Decimal { return decimal.New(int64(rng.IntN(max)), -2) }
	var m totalsMemo
	fair := 0.5
	pos := [2]decimal.Decimal{dec(10000), dec(10000)}
	var orders []*liveOrder
	hits := 0
	for step := range 2000 {
		switch rng.IntN(8) {
		case 0:
			fair = 0.05 + 0.9*rng.Float64()
		case 1:
			pos[rng.IntN(2)] = dec(10000)
		case 2:
			lo := &liveOrder{JournaledOrder: JournaledOrder{Intent: Intent{Outcome: strategy.Outcome(rng.IntN(2)),
				Side: []exchange.Side{exchange.Buy, exchange.Sell}[rng.IntN(2)], Price: decimal.New(int64(1+rng.IntN(99)), -2), Size: dec(5000)}}}
			orders = append(orders, lo)
		case 3:
			if len(orders) > 0 {
				i := rng.IntN(len(orders))
				orders = append(orders[:i:i], orders[i+1:]...)
			}
		case 4:
			if len(orders) > 0 {
				lo := orders[rng.IntN(len(orders))]
				lo.SizeMatched = lo.SizeMatched.Add(dec(300))
			}
		}
		want := risk.MarketTotals(fair, pos, riskOpen(orders))
		before := m.t
		got := m.totals(fair, pos, orders)
		if !got.Shares.Equal(want.Shares) || !got.AtRisk.Equal(want.AtRisk) || got.Open != want.Open {
			t.Fatalf("step %d: %+v, want %+v", step, got, want)
		}
		if step > 0 && got == before {
			hits++
		}
	}
	if hits < 500 {
		t.Errorf("the memo answered %d of 2000: want the unchanged ones", hits)
	}
}

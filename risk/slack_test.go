package risk

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// TestSlackAdmits checks the Slack's promise on random exposures, orders
// and other markets' totals: record a market's fits and checks against
// one set of totals; whenever Admits takes another set, every fit and
// check comes out the same against it. Admits must take many: the same
// totals always, lower ones unless a total decided something, and small
// rises within the room.
func TestSlackAdmits(t *testing.T) {
	c, err := NewChecker(testLimits())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	price := func() decimal.Decimal { return decimal.New(int64(5+rng.IntN(90)), -2) }
	side := func() exchange.Side { return []exchange.Side{exchange.Buy, exchange.Sell}[rng.IntN(2)] }
	totals := func() Totals {
		return Totals{Shares: decimal.New(int64(rng.IntN(3500)), -1), AtRisk: decimal.New(int64(rng.IntN(2200)), -1), Open: rng.IntN(9)}
	}
	admitted, changed := 0, 0
	for trial := range 3000 {
		e := Exposure{Fair: 0.2 + 0.6*rng.Float64(), Now: t0,
			Position: [2]decimal.Decimal{decimal.New(int64(rng.IntN(80)), 0), decimal.New(int64(rng.IntN(80)), 0)}}
		for range rng.IntN(3) {
			e.Open = append(e.Open, Order{Outcome: rng.IntN(2), Side: side(), Price: price(), Size: decimal.New(int64(1+rng.IntN(30)), 0)})
		}
		orders := make([]Order, 1+rng.IntN(4))
		for i := range orders {
			orders[i] = Order{Outcome: rng.IntN(2), Side: side(), Price: price(), Size: decimal.New(int64(1+rng.IntN(60)), 0)}
		}
		run := func(others Totals, slack *Slack) string {
			x := e
			x.Others, x.Slack = others, slack
			out := ""
			f := c.Fitter(&x)
			for _, o := range orders {
				if trial%2 == 0 { // else only checks
					s, why := f.Fit(o.Outcome, o.Side, round(o.Price, up), round(o.Size, up))
					f.Add(o.Outcome, o.Side, round(o.Price, up), s)
					out += fmt.Sprintf("fit %s %v; ", s, why)
				}
				out += fmt.Sprintf("check %v; ", c.Check(o, &x))
			}
			return out
		}
		was := totals()
		slack := NewSlack()
		want := run(was, &slack)
		for range 10 {
			now := was
			switch rng.IntN(4) {
			case 0:
				now = totals()
			case 1:
				now.Shares = now.Shares.Add(decimal.New(int64(rng.IntN(400)-200), -1))
			case 2:
				now.AtRisk = now.AtRisk.Add(decimal.New(int64(rng.IntN(400)-200), -1))
			default:
				now.Open += rng.IntN(5) - 2
			}
			if now == was || !slack.Admits(was, now) {
				continue
			}
			changed++
			if got := run(now, nil); got != want {
				t.Fatalf("trial %d: Admits(%v, %v) but\n got %s\nwant %s", trial, was, now, got, want)
			}
			admitted++
		}
	}
	t.Logf("admitted %d changed totals", admitted)
	if admitted < 3000 {
		t.Errorf("admitted %d changed totals: want many", admitted)
	}
}

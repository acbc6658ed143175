package loop

import (
	"math"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// totalsMemo keeps one market's risk.MarketTotals for a fair value, a
// position and a list of orders, so that a cycle in which they did not
// change does not measure them again. Decimals are compared as values
// held (the same big.Int, immutable), orders by their tracking entry and
// what the totals read of it.
type totalsMemo struct {
	ok     bool
	fair   uint64
	pos    [2]decimal.Decimal
	orders []totalsKey
	t      risk.Totals
}

type totalsKey struct {
	lo          *liveOrder
	outcome     strategy.Outcome
	side        exchange.Side
	price, size decimal.Decimal
}

// Slots of marketRun.totals, one per way the loop sums a market.
const (
	totalsOpen     = iota // the plan: position and open orders
	totalsInflight        // the plan: intents in flight, no position
	totalsAll             // the status: position and every tracked order
	totalsAllBare         // the status: every tracked order, no position
	numTotals
)

// totals returns risk.MarketTotals(fair, pos, the orders as riskOpen
// converts them), from m when they are the ones it was made of.
func (m *totalsMemo) totals(fair float64, pos [2]decimal.Decimal, orders []*liveOrder) risk.Totals {
	if m.ok && m.fair == math.Float64bits(fair) && m.pos == pos && len(m.orders) == len(orders) {
		same := true
		for i, lo := range orders {
			k := &m.orders[i]
			if k.lo != lo || k.outcome != lo.Outcome || k.side != lo.Side || k.price != lo.Price || k.size != remaining(lo) {
				same = false
				break
			}
		}
		if same {
			return m.t
		}
	}
	m.ok, m.fair, m.pos = true, math.Float64bits(fair), pos
	m.orders = m.orders[:0]
	for _, lo := range orders {
		m.orders = append(m.orders, totalsKey{lo: lo, outcome: lo.Outcome, side: lo.Side, price: lo.Price, size: remaining(lo)})
	}
	m.t = risk.MarketTotals(fair, pos, riskOpen(orders))
	return m.t
}

package strategy

import (
	"cmp"
	"math"
	"slices"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

// sizeBound reports whether r is one of the limits risk.Checker.Fit sizes
// an order within.
func sizeBound(r risk.Reason) bool {
	switch r {
	case risk.ReasonOrderSize, risk.ReasonOrderNotional, risk.ReasonSellExceedsPosition,
		risk.ReasonMarketShares, risk.ReasonTotalShares, risk.ReasonMarketAtRisk, risk.ReasonTotalAtRisk:
		return true
	}
	return false
}

// fitDesired cuts q.desired to the size-dependent limits, nearest levels
// first (in the model's order within a level): each quote is checked
// against the position, the other markets and the quotes fitted before it,
// as if the desired quotes were the market's only orders (they are what
// the plan leaves resting). A quote cut below minCs centi-shares gets size
// 0, which the planner drops. lim counts the cuts per limit. e.Open is left
// holding the fitted quotes.
func (q *Quoter) fitDesired(e *risk.Exposure, minCs int64, lim *[risk.NumReasons]int) {
	q.byLevel = q.byLevel[:0]
	for i := range q.desired {
		q.byLevel = append(q.byLevel, i)
	}
	desired := q.desired
	slices.SortStableFunc(q.byLevel, func(a, b int) int { return cmp.Compare(desired[a].Level, desired[b].Level) })
	q.fitted = q.fitted[:0]
	e.Open = q.fitted
	for _, i := range q.byLevel {
		d := &q.desired[i]
		if !d.Outcome.Valid() || !d.Side.Valid() || math.IsNaN(d.Price) || !(d.Size > 0) || d.Size > maxSize {
			continue // the planner drops it
		}
		cs := centiShares(d.Size)
		if cs < minCs {
			continue
		}
		o := risk.Order{Outcome: int(d.Outcome), Side: d.Side, Price: fitPrice(d.Price, d.Side), Size: decimal.New(cs, -2)}
		size, why := q.Checker.Fit(o, e)
		if why != 0 {
			lim[why]++
			if cs = centiSharesDec(size); cs < minCs {
				d.Size = 0
				continue
			}
			d.Size = float64(cs) / 100
			o.Size = decimal.New(cs, -2)
		}
		e.Open = append(e.Open, o)
	}
	q.fitted = e.Open
}

// fitPrice is a model price as the limits should see it before the planner
// puts it on the grid: a BUY's price only goes down there (rounded down,
// kept off the others' asks), so its price rounded up to 6 decimals counts
// at least the collateral the order will lock. A SELL locks none.
func fitPrice(p float64, sd exchange.Side) decimal.Decimal {
	const scale = 1e6
	n := int64(math.Ceil(min(max(p, 0), 1)*scale - 1e-6))
	if sd == exchange.Sell {
		n = int64(math.Floor(min(max(p, 0), 1)*scale + 1e-6))
	}
	return decimal.New(min(max(n, 1), scale-1), -6)
}

// centiSharesDec rounds a size down to 2 decimals, in centi-shares.
func centiSharesDec(s decimal.Decimal) int64 {
	return s.Shift(2).Floor().IntPart()
}

// minCentiShares is the market's minimum order size in centi-shares (at
// least 1), as the planner applies it.
func minCentiShares(m decimal.Decimal) int64 {
	return max(m.Shift(2).Ceil().IntPart(), 1)
}

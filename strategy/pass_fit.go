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
// 0, which the planner drops. lim counts the cuts per limit. It works in
// base units and allocates nothing once its buffer has grown.
func (q *Quoter) fitDesired(e *risk.Exposure, minCs int64, lim *[risk.NumReasons]int) {
	q.byLevel = q.byLevel[:0]
	for i := range q.desired {
		q.byLevel = append(q.byLevel, i)
	}
	desired := q.desired
	slices.SortStableFunc(q.byLevel, func(a, b int) int { return cmp.Compare(desired[a].Level, desired[b].Level) })
	f := q.Checker.Fitter(e)
	for _, i := range q.byLevel {
		d := &q.desired[i]
		if !d.Outcome.Valid() || !d.Side.Valid() || math.IsNaN(d.Price) || !(d.Size > 0) || d.Size > maxSize {
			continue // the planner drops it
		}
		cs := centiShares(d.Size)
		if cs < minCs {
			continue
		}
		price := fitPrice(d.Price, d.Side)
		size, why := f.Fit(int(d.Outcome), d.Side, price, exchange.Fixed(cs*centi))
		if why != 0 {
			lim[why]++
			if cs = int64(size) / centi; cs < minCs {
				d.Size = 0
				continue
			}
			d.Size = float64(cs) / 100
		}
		f.Add(int(d.Outcome), d.Side, price, exchange.Fixed(cs*centi))
	}
}

// centi is a centi-share in base units.
const centi = exchange.FixedScale / 100

// fitPrice is a model price in base units as the limits should see it
// before the planner puts it on the grid: a BUY's price only goes down
// there (rounded down, kept off the others' asks), so its price rounded up
// counts at least the collateral the order will lock. A SELL locks none.
func fitPrice(p float64, sd exchange.Side) exchange.Fixed {
	const scale = exchange.FixedScale
	p = min(max(p, 0), 1) * scale
	n := int64(math.Ceil(p - 1e-6))
	if sd == exchange.Sell {
		n = int64(math.Floor(p + 1e-6))
	}
	return exchange.Fixed(min(max(n, 1), scale-1))
}

// centiSharesDec rounds a size down to 2 decimals, in centi-shares.
func centiSharesDec(s decimal.Decimal) int64 {
	return s.Shift(2).Floor().IntPart()
}

package risk

import (
	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// NumReasons is one more than the largest Reason: an array indexed by Reason
// has this length.
const NumReasons = int(reasonEnd)

// Fit returns the largest size, at most o.Size, that the size-dependent
// checks would accept for o against e (the order size and notional limits,
// SELL against the shares held and not already offered, the worst-case
// shares limits and the collateral-at-risk limits), and the limit that
// bound it: 0 when o.Size fits whole. The size is in the exchange's base
// units (6 decimals), rounded down; 0 when nothing fits. The other checks
// (collar, cool-down, self-cross, open-order counts, validity) do not depend
// on the size and are left to Check, which a fitted order still has to
// pass. Fit does not modify e.
//
// The planner sizes its quotes with it, so that quotes shrink as a limit
// comes near instead of being refused cycle after cycle.
func (c *Checker) Fit(o Order, e *Exposure) (decimal.Decimal, Reason) {
	s, why := c.fit(o, e)
	return s.Decimal(), why
}

func (c *Checker) fit(o Order, e *Exposure) (exchange.Fixed, Reason) {
	l := &c.lim
	size := round(o.Size, up)
	price := round(o.Price, up)
	if size <= 0 || price <= 0 || price >= one || (o.Outcome != Yes && o.Outcome != No) || !o.Side.Valid() {
		return 0, 0 // Check refuses it whatever its size
	}
	best, why := size, Reason(0)
	bound := func(s exchange.Fixed, r Reason) {
		if s < best {
			best, why = max(s, 0), r
		}
	}
	if l.orderSize > 0 {
		bound(l.orderSize, ReasonOrderSize)
	}
	if l.orderNotional > 0 {
		bound(maxSizeFor(l.orderNotional, price), ReasonOrderNotional)
	}
	fair := fairValue(e.Fair)
	before := measure(fair, e.Position, e.Open)
	if o.Side == exchange.Sell {
		bound(round(e.Position[o.Outcome], down)-before.sells[o.Outcome], ReasonSellExceedsPosition)
	}
	// Worst-case shares: the check applies only when the order raises the
	// worst case, so up to the present worst case always passes.
	dir := before.longNo
	if bidLike(o.Outcome, o.Side) {
		dir = before.longYes
	}
	w := before.worst()
	if l.marketShares > 0 {
		bound(max(w, l.marketShares)-dir, ReasonMarketShares)
	}
	if l.totalShares > 0 {
		bound(max(w, l.totalShares-round(e.Others.Shares, up))-dir, ReasonTotalShares)
	}
	// Collateral at risk: only a BUY adds to it, and the limits apply only
	// when the order leaves the position long in its own direction; up to
	// −dir shares unwind and always pass.
	if o.Side == exchange.Buy {
		free := max(-dir, 0)
		if l.marketAtRisk > 0 {
			bound(max(free, maxSizeFor(l.marketAtRisk-before.atRisk, price)), ReasonMarketAtRisk)
		}
		if l.totalAtRisk > 0 {
			room := l.totalAtRisk - satAdd(round(e.Others.AtRisk, up), before.atRisk)
			bound(max(free, maxSizeFor(room, price)), ReasonTotalAtRisk)
		}
	}
	return best, why
}

// maxSizeFor returns the largest size s with mulUp(price, s) ≤ room, 0 when
// room is not positive.
func maxSizeFor(room, price exchange.Fixed) exchange.Fixed {
	if room <= 0 {
		return 0
	}
	s, err := room.Div(price, down)
	if err != nil {
		return exchange.MaxFixed
	}
	return s
}

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
// The planner sizes its quotes with it (through a Fitter), so that quotes
// shrink as a limit comes near instead of being refused cycle after cycle.
func (c *Checker) Fit(o Order, e *Exposure) (decimal.Decimal, Reason) {
	f := c.Fitter(e)
	s, why := f.Fit(o.Outcome, o.Side, round(o.Price, up), round(o.Size, up))
	return s.Decimal(), why
}

// Fitter sizes one market's orders in turn within the size-dependent limits
// (see Fit): each order is fitted against the exposure it was made from
// plus the orders Added since. It works in base units and allocates
// nothing; it is a value, not safe for concurrent use.
type Fitter struct {
	lim                        *unitLimits
	m                          marketMeasure
	held                       [2]exchange.Fixed
	othersShares, othersAtRisk exchange.Fixed
	slack                      *Slack
}

// Fitter measures e (its position, open orders and other markets) for
// fitting orders against it.
func (c *Checker) Fitter(e *Exposure) Fitter {
	return Fitter{lim: &c.lim, m: measure(fairValue(e.Fair), e.Position, e.Open),
		held:         [2]exchange.Fixed{round(e.Sellable(Yes), down), round(e.Sellable(No), down)},
		othersShares: round(e.Others.Shares, up), othersAtRisk: round(e.Others.AtRisk, up), slack: e.Slack}
}

// Add counts an order (price and size in base units) as open, for the
// orders fitted after it.
func (f *Fitter) Add(outcome int, side exchange.Side, price, size exchange.Fixed) {
	f.m.addUnits(outcome, side, price, size)
}

// Fit returns the largest size, at most size, for an order of outcome and
// side at price (base units), and the limit that bound it (0: none). An
// order that Check refuses whatever its size (invalid) gets 0 and 0.
func (f *Fitter) Fit(outcome int, side exchange.Side, price, size exchange.Fixed) (exchange.Fixed, Reason) {
	l := f.lim
	if size <= 0 || price <= 0 || price >= one || (outcome != Yes && outcome != No) || !side.Valid() {
		return 0, 0
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
	before := &f.m
	if side == exchange.Sell {
		bound(f.held[outcome]-before.sells[outcome], ReasonSellExceedsPosition)
	}
	// Worst-case shares: the check applies only when the order raises the
	// worst case, so up to the present worst case always passes.
	dir := before.longNo
	if bidLike(outcome, side) {
		dir = before.longYes
	}
	w := before.worst()
	if l.marketShares > 0 {
		bound(max(w, l.marketShares)-dir, ReasonMarketShares)
	}
	if l.totalShares > 0 {
		prev, v := best, max(w, l.totalShares-f.othersShares)-dir
		bound(v, ReasonTotalShares)
		switch {
		case v < prev:
			f.slack.pin(true, false, false)
		case w-dir < prev:
			// It stays unbound while totalShares − othersShares − dir ≥ prev.
			f.slack.roomShares(l.totalShares - dir - prev - f.othersShares)
		}
	}
	// Collateral at risk: only a BUY adds to it, and the limits apply only
	// when the order leaves the position long in its own direction; up to
	// −dir shares unwind and always pass.
	if side == exchange.Buy {
		free := max(-dir, 0)
		if l.marketAtRisk > 0 {
			bound(max(free, maxSizeFor(l.marketAtRisk-before.atRisk, price)), ReasonMarketAtRisk)
		}
		if l.totalAtRisk > 0 {
			prev, v := best, max(free, maxSizeFor(l.totalAtRisk-satAdd(f.othersAtRisk, before.atRisk), price))
			bound(v, ReasonTotalAtRisk)
			switch {
			case v < prev:
				f.slack.pin(false, true, false)
			case free < prev:
				// It stays unbound while the room left is at least
				// mulUp(price, prev) (maxSizeFor rounds down).
				f.slack.roomAtRisk(l.totalAtRisk - before.atRisk - mulUp(price, prev) - f.othersAtRisk)
			}
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

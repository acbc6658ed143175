package risk

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// Checker runs the pre-trade checks against fixed Limits. It holds no
// mutable state and is safe for concurrent use.
type Checker struct {
	lim unitLimits
}

// NewChecker validates l and returns a Checker for it.
func NewChecker(l Limits) (*Checker, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &Checker{lim: l.units()}, nil
}

// Cooling reports whether a fill at last (zero: none) still holds its
// outcome and side in the fill cool-down at now.
func (c *Checker) Cooling(last, now time.Time) bool {
	return c.lim.cooldown > 0 && !last.IsZero() && now.Before(last.Add(c.lim.cooldown))
}

// Check runs every check on o against e, in the order of the Reason
// constants, and returns the first failure as a *Rejection, or nil. It does
// not modify e.
func (c *Checker) Check(o Order, e *Exposure) error {
	if r := c.check(o, e); r != nil {
		return r
	}
	return nil
}

// Filter checks orders in turn. Each accepted order is appended to e.Open,
// so the rest of the batch is checked against it; the caller can read the
// final exposure back from e. It allocates its results; AppendFilter does not.
func (c *Checker) Filter(orders []Order, e *Exposure) (accepted []Order, rejected []*Rejection) {
	return c.AppendFilter(nil, nil, orders, e)
}

// AppendFilter is Filter appending to caller-owned slices.
func (c *Checker) AppendFilter(accepted []Order, rejected []*Rejection, orders []Order, e *Exposure) ([]Order, []*Rejection) {
	for _, o := range orders {
		if r := c.check(o, e); r != nil {
			rejected = append(rejected, r)
			continue
		}
		e.Open = append(e.Open, o)
		accepted = append(accepted, o)
	}
	return accepted, rejected
}

func reject(o Order, r Reason, format string, a ...any) *Rejection {
	return &Rejection{Reason: r, Order: o, Detail: fmt.Sprintf(format, a...)}
}

func (c *Checker) check(o Order, e *Exposure) *Rejection {
	l := &c.lim
	price, errp := exchange.FixedRound(o.Price, up)
	size, errs := exchange.FixedRound(o.Size, up)
	switch {
	case o.Outcome != Yes && o.Outcome != No:
		return reject(o, ReasonInvalidOrder, "outcome must be 0 (YES) or 1 (NO)")
	case !o.Side.Valid():
		return reject(o, ReasonInvalidOrder, "side must be BUY or SELL")
	case errp != nil || price <= 0 || price >= one:
		return reject(o, ReasonInvalidOrder, "price must be in (0,1)")
	case errs != nil || size <= 0:
		return reject(o, ReasonInvalidOrder, "size must be positive")
	}
	if l.orderSize > 0 && size > l.orderSize {
		return reject(o, ReasonOrderSize, "size %s > limit %s", size, l.orderSize)
	}
	notional := mulUp(price, size)
	if l.orderNotional > 0 && notional > l.orderNotional {
		return reject(o, ReasonOrderNotional, "notional %s > limit %s", notional, l.orderNotional)
	}
	if l.cooldown > 0 {
		if last := e.LastFill[o.Outcome][sideIndex(o.Side)]; c.Cooling(last, e.Now) {
			return reject(o, ReasonCooldown, "last fill %s ago, cool-down %s", e.Now.Sub(last).Round(time.Millisecond), l.cooldown)
		}
	}
	fair := fairValue(e.Fair)
	if l.collar > 0 {
		if fair == 0 {
			return reject(o, ReasonNoFairValue, "collar %s needs a fair value", l.collar)
		}
		tokenFair := yesPrice(o.Outcome, fair) // the map is its own inverse
		if d := abs(price - tokenFair); d > l.collar {
			return reject(o, ReasonCollar, "|price − fair %s| = %s > collar %s", tokenFair, d, l.collar)
		}
	}
	if r := selfCross(o, price, e.Open); r != nil {
		return r
	}
	before := measure(fair, e.Position, e.Open)
	if o.Side == exchange.Sell {
		held := round(e.Sellable(o.Outcome), down)
		if need := satAdd(before.sells[o.Outcome], size); need > held {
			return reject(o, ReasonSellExceedsPosition, "selling %s with %s held", need, held)
		}
	}
	if n := len(e.Open) + 1; l.openMarket > 0 && n > l.openMarket {
		return reject(o, ReasonMarketOpenOrders, "%d open orders > limit %d", n, l.openMarket)
	}
	if n := e.Others.Open + len(e.Open) + 1; l.openTotal > 0 && n > l.openTotal {
		e.Slack.pin(false, false, true)
		return reject(o, ReasonTotalOpenOrders, "%d open orders > limit %d", n, l.openTotal)
	}
	if l.openTotal > 0 {
		e.Slack.roomOpen(l.openTotal - (e.Others.Open + len(e.Open) + 1))
	}
	after := before
	after.add(o)
	if w := after.worst(); w > before.worst() {
		if l.marketShares > 0 && w > l.marketShares {
			return reject(o, ReasonMarketShares, "worst-case %s shares > limit %s", w, l.marketShares)
		}
		if t := satAdd(round(e.Others.Shares, up), w); l.totalShares > 0 && t > l.totalShares {
			e.Slack.pin(true, false, false)
			return reject(o, ReasonTotalShares, "worst-case %s shares > limit %s", t, l.totalShares)
		}
		if l.totalShares > 0 {
			e.Slack.roomShares(l.totalShares - satAdd(round(e.Others.Shares, up), w))
		}
	}
	// A BUY that only unwinds the net position (a NO bid while long YES)
	// turns collateral into riskless pairs: the collateral limits apply to
	// orders that add to the position in their own direction.
	dir := after.longNo
	if bidLike(o.Outcome, o.Side) {
		dir = after.longYes
	}
	if after.atRisk > before.atRisk && dir > 0 {
		if l.marketAtRisk > 0 && after.atRisk > l.marketAtRisk {
			return reject(o, ReasonMarketAtRisk, "%s at risk > limit %s", after.atRisk, l.marketAtRisk)
		}
		if t := satAdd(round(e.Others.AtRisk, up), after.atRisk); l.totalAtRisk > 0 && t > l.totalAtRisk {
			e.Slack.pin(false, true, false)
			return reject(o, ReasonTotalAtRisk, "%s at risk > limit %s", t, l.totalAtRisk)
		}
		if l.totalAtRisk > 0 {
			e.Slack.roomAtRisk(l.totalAtRisk - satAdd(round(e.Others.AtRisk, up), after.atRisk))
		}
	}
	return nil
}

// selfCross reports whether o would trade against one of our own orders. In
// YES space every order is a bid (BUY YES, SELL NO at 1−p) or an ask (SELL
// YES, BUY NO at 1−p); a bid at or above an ask of ours is a self-cross,
// which covers both the same token and the complement (BUY YES p with BUY NO
// q crosses when p+q ≥ 1).
func selfCross(o Order, price exchange.Fixed, open []Order) *Rejection {
	bid := bidLike(o.Outcome, o.Side)
	y := yesPrice(o.Outcome, price)
	for _, x := range open {
		if x.Outcome != Yes && x.Outcome != No || !x.Side.Valid() {
			continue
		}
		if bidLike(x.Outcome, x.Side) == bid {
			continue
		}
		xy := yesPrice(x.Outcome, round(x.Price, up)) // exact: prices are on a grid far coarser than 10^-6
		if bid && y >= xy || !bid && y <= xy {
			return reject(o, ReasonSelfCross, "crosses our %s", x)
		}
	}
	return nil
}

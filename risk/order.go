package risk

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// Outcome indexes, as in package strategy.
const (
	Yes = 0
	No  = 1
)

// Order is one planned order of one market, as the checks see it.
type Order struct {
	Outcome int           // Yes (0) or No (1)
	Side    exchange.Side // BUY or SELL
	Price   decimal.Decimal
	Size    decimal.Decimal // shares
}

// String formats the order as "BUY YES 10@0.55".
func (o Order) String() string {
	name := "YES"
	switch o.Outcome {
	case Yes:
	case No:
		name = "NO"
	default:
		name = fmt.Sprintf("outcome(%d)", o.Outcome)
	}
	return fmt.Sprintf("%s %s %s@%s", o.Side, name, o.Size, o.Price)
}

// Exposure is what the checks know about the market an order belongs to.
type Exposure struct {
	// Fair is the YES fair value in (0,1); NaN (or anything outside (0,1))
	// when unknown. The NO fair value is 1−Fair.
	Fair float64
	// Position holds our shares per outcome (never negative on this
	// exchange: a short is a position in the other token).
	Position [2]decimal.Decimal
	// Locked holds, per outcome, the shares of Position that cannot be
	// offered now: bought in trades the exchange has not settled yet, or
	// under SELLs in flight that Open does not show. A SELL is checked
	// against Position less Locked less the SELLs in Open.
	Locked [2]decimal.Decimal
	// Open holds our live orders in this market that stay after the plan's
	// cancels. Filter appends each accepted order to it, so that later orders
	// of the same batch are checked against earlier ones.
	Open []Order
	// LastFill is the time of our last fill per outcome and side
	// ([outcome][0 BUY, 1 SELL]); zero when none.
	LastFill [2][2]time.Time
	// Now is the time of the check, for the cool-down.
	Now time.Time
	// Others sums every other market (not this one).
	Others Totals
	// Slack, when set, records how the checks and fits made against this
	// exposure depended on Others.
	Slack *Slack
}

// Totals is the exposure of one or more markets, summed: worst-case
// directional shares, collateral at risk and the number of open orders. The
// loop computes it per market with MarketTotals and sums the markets other
// than the one being checked.
type Totals struct {
	Shares decimal.Decimal
	AtRisk decimal.Decimal
	Open   int
}

// Add returns t+u.
func (t Totals) Add(u Totals) Totals {
	return Totals{Shares: t.Shares.Add(u.Shares), AtRisk: t.AtRisk.Add(u.AtRisk), Open: t.Open + u.Open}
}

// MarketTotals computes one market's Totals from the same inputs as an
// Exposure. Shares is the larger worst-case directional position (see
// package doc and docs/strategies.md); AtRisk is the collateral locked in
// open BUY orders plus the unpaired positions marked at fair value (at 1 per
// share when the fair value is unknown). A YES+NO pair is worth 1 whatever
// the resolution, so paired shares are not at risk.
func MarketTotals(fair float64, pos [2]decimal.Decimal, open []Order) Totals {
	m := measure(fairValue(fair), pos, open)
	return Totals{
		Shares: m.worst().Decimal(),
		AtRisk: m.atRisk.Decimal(),
		Open:   len(open),
	}
}

// sideIndex maps BUY to 0 and SELL to 1 (LastFill's second index).
func sideIndex(s exchange.Side) int {
	if s == exchange.Sell {
		return 1
	}
	return 0
}

// bidLike reports whether an order buys YES exposure: BUY YES or SELL NO. A
// BUY NO at q is an ask on YES at 1−q; a SELL NO at q a bid on YES at 1−q.
func bidLike(outcome int, side exchange.Side) bool {
	return (outcome == Yes) == (side == exchange.Buy)
}

// yesPrice maps a price of the order's token to YES space.
func yesPrice(outcome int, p exchange.Fixed) exchange.Fixed {
	if outcome == No {
		return one - p
	}
	return p
}

// marketMeasure is a market's exposure in base units.
type marketMeasure struct {
	longYes exchange.Fixed // net YES shares if every bid-like order filled and no ask-like did
	longNo  exchange.Fixed // the mirror image
	atRisk  exchange.Fixed // collateral: open BUY notional + unpaired positions at fair
	sells   [2]exchange.Fixed
}

func (m marketMeasure) worst() exchange.Fixed { return max(m.longYes, m.longNo, 0) }

// measure sums a market's exposure. Sizes and positions round up.
func measure(fair exchange.Fixed, pos [2]decimal.Decimal, open []Order) marketMeasure {
	py, pn := round(pos[Yes], up), round(pos[No], up)
	var m marketMeasure
	m.longYes = py - pn
	m.longNo = pn - py
	markY, markN := one, one
	if fair > 0 {
		markY, markN = fair, one-fair
	}
	pairs := max(min(py, pn), 0) // a YES+NO pair redeems for 1 whatever happens: not at risk
	m.atRisk = mulUp(py-pairs, markY) + mulUp(pn-pairs, markN)
	for _, o := range open {
		m.add(o)
	}
	return m
}

// add accounts for one more open order.
func (m *marketMeasure) add(o Order) {
	m.addUnits(o.Outcome, o.Side, round(o.Price, up), round(o.Size, up))
}

// addUnits is add with price and size in base units, rounded up.
func (m *marketMeasure) addUnits(outcome int, side exchange.Side, price, s exchange.Fixed) {
	if bidLike(outcome, side) {
		m.longYes = satAdd(m.longYes, s)
	} else {
		m.longNo = satAdd(m.longNo, s)
	}
	if side == exchange.Buy {
		m.atRisk = satAdd(m.atRisk, mulUp(price, s))
	} else if outcome == Yes || outcome == No {
		m.sells[outcome] = satAdd(m.sells[outcome], s)
	}
}

// Sellable returns the shares of outcome that SELLs may offer: the position
// less what is Locked, never below zero (the SELLs in Open are counted by
// the checks).
func (e *Exposure) Sellable(outcome int) decimal.Decimal {
	if outcome != Yes && outcome != No {
		return decimal.Zero
	}
	if e.Locked[outcome].IsZero() && !e.Position[outcome].IsNegative() {
		return e.Position[outcome] // nothing locked: no subtraction to allocate
	}
	s := e.Position[outcome].Sub(e.Locked[outcome])
	if s.IsNegative() {
		return decimal.Zero
	}
	return s
}

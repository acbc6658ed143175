package risk

import (
	"errors"
	"fmt"
)

// Reason says which pre-trade check refused an order.
type Reason uint8

// Pre-trade rejection reasons. The zero value is not a reason.
const (
	_                         Reason = iota
	ReasonInvalidOrder               // outcome, side, price or size out of range
	ReasonOrderSize                  // size above Limits.MaxOrderSize
	ReasonOrderNotional              // price×size above Limits.MaxOrderNotional
	ReasonCooldown                   // a fill on this outcome and side is too recent
	ReasonNoFairValue                // the collar is on but the fair value is unknown
	ReasonCollar                     // price too far from fair value
	ReasonSelfCross                  // would cross one of our own orders (same token or complement)
	ReasonSellExceedsPosition        // SELL for more shares than held and not already offered
	ReasonMarketOpenOrders           // open orders in this market at the limit
	ReasonTotalOpenOrders            // open orders across markets at the limit
	ReasonMarketShares               // worst-case directional shares in this market above the limit
	ReasonTotalShares                // worst-case shares across markets above the limit
	ReasonMarketAtRisk               // collateral at risk in this market above the limit
	ReasonTotalAtRisk                // collateral at risk across markets above the limit
	reasonEnd
)

var reasonNames = [...]string{
	"unknown",
	"invalid_order",
	"order_size",
	"order_notional",
	"cooldown",
	"no_fair_value",
	"price_collar",
	"self_cross",
	"sell_exceeds_position",
	"market_open_orders",
	"total_open_orders",
	"market_position",
	"total_position",
	"market_collateral_at_risk",
	"total_collateral_at_risk",
}

// String returns the reason's stable snake_case name, used in logs and as a
// metric label.
func (r Reason) String() string {
	if r >= reasonEnd {
		return fmt.Sprintf("reason(%d)", uint8(r))
	}
	return reasonNames[r]
}

// ErrRejected matches every *Rejection with errors.Is.
var ErrRejected = errors.New("risk: order rejected")

// Rejection is the error of a refused order: the check that failed, the
// order, and a human-readable detail with the numbers involved. Neither field
// holds anything secret.
type Rejection struct {
	Reason Reason
	Order  Order
	Detail string
}

// Error implements error.
func (r *Rejection) Error() string {
	return fmt.Sprintf("risk: rejected %s: %s: %s", r.Order, r.Reason, r.Detail)
}

// Is makes errors.Is(err, ErrRejected) true for every rejection.
func (r *Rejection) Is(target error) bool { return target == ErrRejected }

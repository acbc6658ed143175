package state

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// Order is one journaled order. Hash (the EIP-712 order hash, as the signer
// computed it) is the key; ExchangeID is the exchange's order id once an
// answer has named it. Item is the signed order as sent, so a restart never
// needs to re-sign or re-send: it reconciles by hash. Its Owner (the API
// key, a secret) is never stored: the journal holds no credential.
//
// Stored as JSON; decimals travel as strings, unset times are omitted.
type Order struct {
	Hash        string                 `json:"hash"`
	ExchangeID  string                 `json:"exchange_id,omitempty"`
	ConditionID string                 `json:"condition_id"`
	TokenID     string                 `json:"token_id"`
	Outcome     int                    `json:"outcome"`
	Side        exchange.Side          `json:"side"`
	Price       decimal.Decimal        `json:"price"`
	Size        decimal.Decimal        `json:"size"`
	SizeMatched decimal.Decimal        `json:"size_matched"`
	OrderType   exchange.OrderType     `json:"order_type"`
	State       OrderState             `json:"state"`
	Item        exchange.PlacementItem `json:"item"`
	Salt        string                 `json:"salt"`
	CreatedAt   time.Time              `json:"created_at,omitzero"`
	SentAt      time.Time              `json:"sent_at,omitzero"`
	UpdatedAt   time.Time              `json:"updated_at,omitzero"`
	LastError   string                 `json:"last_error,omitempty"`
}

// Remaining returns the size not yet matched (never negative).
func (o *Order) Remaining() decimal.Decimal {
	r := o.Size.Sub(o.SizeMatched)
	if r.IsNegative() {
		return decimal.Zero
	}
	return r
}

// validate checks the fields every stored order must have right.
func (o *Order) validate() error {
	bad := func(why string) error {
		return fmt.Errorf("order %q: %s: %w", o.Hash, why, ErrInvalid)
	}
	switch {
	case o.Hash == "":
		return bad("empty hash")
	case len(o.Hash) > maxKeyLen:
		return bad("hash too long")
	case len(o.ExchangeID) > maxKeyLen:
		return bad("exchange id too long")
	case o.TokenID == "":
		return bad("empty token id")
	case !o.Side.Valid():
		return bad(fmt.Sprintf("side %q", o.Side))
	case !o.OrderType.Valid():
		return bad(fmt.Sprintf("order type %q", o.OrderType))
	case !o.Price.IsPositive():
		return bad("price must be positive")
	case !o.Size.IsPositive():
		return bad("size must be positive")
	case o.SizeMatched.IsNegative():
		return bad("size matched is negative")
	case o.SizeMatched.GreaterThan(o.Size):
		return bad("size matched exceeds size")
	case !o.State.Valid():
		return bad(fmt.Sprintf("state %q", o.State))
	case o.CreatedAt.IsZero():
		return bad("zero creation time")
	}
	return nil
}

package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// Fill is one execution against one of our orders (or, when External is set,
// a position change that no journaled order explains, such as a transfer or
// a fill recorded before the journal existed).
//
// ID is the exchange's trade id, or a deterministic id from DerivedFillID
// when the fill is only known as a change in an order's size matched. Adding
// the same ID twice is a no-op, so fills can be re-read and re-added freely.
//
// Fee is in collateral and is charged to realized PnL when the fill is
// applied (a negative fee is a rebate). Short lets a SELL take the position below zero; without it such a
// SELL is an error (ErrOversell): the bot quotes binary markets with BUYs and
// sells only what it holds.
type Fill struct {
	ID          string          `json:"id"`
	OrderHash   string          `json:"order_hash,omitempty"`
	ConditionID string          `json:"condition_id"`
	TokenID     string          `json:"token_id"`
	Side        exchange.Side   `json:"side"`
	Price       decimal.Decimal `json:"price"`
	Size        decimal.Decimal `json:"size"`
	Fee         decimal.Decimal `json:"fee"`
	Time        time.Time       `json:"time"`
	External    bool            `json:"external,omitempty"`
	Short       bool            `json:"short,omitempty"`
	// Reversal marks a fill that takes back a trade whose settlement failed
	// (PutTrade): Side, Price and Size are the failed trade's, and applying
	// it undoes that trade's shares and collateral (Position.Apply).
	Reversal bool `json:"reversal,omitempty"`
	// Seq is the order in which the journal applied the fill (1, 2, ...);
	// positions are the fold of their fills in Seq order. Set by AddFill.
	Seq uint64 `json:"seq"`
}

// DerivedFillID returns a deterministic fill id for a fill known only as the
// growth of an order's size matched: the same order and the same cumulative
// size matched after the fill always give the same id. The id starts with
// "d:" so it can never collide with an exchange trade id of the usual forms.
func DerivedFillID(orderHash string, matchedAfter decimal.Decimal) string {
	h := sha256.New()
	h.Write([]byte(orderHash))
	h.Write([]byte{0})
	h.Write([]byte(matchedAfter.String()))
	return "d:" + hex.EncodeToString(h.Sum(nil)[:16])
}

func (f *Fill) validate() error {
	bad := func(why string) error {
		return fmt.Errorf("fill %q: %s: %w", f.ID, why, ErrInvalid)
	}
	switch {
	case f.ID == "":
		return bad("empty id")
	case len(f.ID) > maxKeyLen:
		return bad("id too long")
	case f.TokenID == "":
		return bad("empty token id")
	case len(f.TokenID) > maxKeyLen:
		return bad("token id too long")
	case f.OrderHash == "" && !f.External:
		return bad("no order hash and not marked external")
	case !f.Side.Valid():
		return bad(fmt.Sprintf("side %q", f.Side))
	case !f.Price.IsPositive():
		return bad("price must be positive")
	case !f.Size.IsPositive():
		return bad("size must be positive")
	case f.Time.IsZero():
		return bad("zero time")
	}
	return nil
}

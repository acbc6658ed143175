package state

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// Trade statuses: the settlement of a match on the exchange (MATCHED →
// MINED → CONFIRMED, or RETRYING → FAILED).
const (
	TradeMatched   = "MATCHED"
	TradeMined     = "MINED"
	TradeConfirmed = "CONFIRMED"
	TradeRetrying  = "RETRYING"
	TradeFailed    = "FAILED"
)

// TradeFinal reports whether status is a final settlement status.
func TradeFinal(status string) bool { return status == TradeConfirmed || status == TradeFailed }

func tradeStatusValid(s string) bool {
	switch s {
	case TradeMatched, TradeMined, TradeConfirmed, TradeRetrying, TradeFailed:
		return true
	}
	return false
}

// Trade is the settlement of one trade of one of our orders: the fill it
// brought is booked (pending) while the trade is not final, final at
// CONFIRMED, and taken back at FAILED. The journal keeps a trade while it
// is not final (trades_open) and, once FAILED, for good (the statement
// lists them); a CONFIRMED trade needs no record beyond its fill and is
// dropped.
type Trade struct {
	ID          string          `json:"id"` // the exchange's trade id
	OrderHash   string          `json:"order_hash"`
	ConditionID string          `json:"condition_id"`
	TokenID     string          `json:"token_id"`
	Side        exchange.Side   `json:"side"`
	Price       decimal.Decimal `json:"price"`
	Size        decimal.Decimal `json:"size"`
	Status      string          `json:"status"`
	MatchedAt   time.Time       `json:"matched_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	// Reversed is set once the fill of a FAILED trade has been taken back
	// (a Reversal fill with ID ReversalID).
	Reversed bool `json:"reversed,omitempty"`
}

// TradeKey names one trade of one order: a trade may match several of our
// orders.
func TradeKey(tradeID, orderHash string) string {
	return tradeID + "/" + strings.ToLower(orderHash)
}

// Key returns t's TradeKey.
func (t *Trade) Key() string { return TradeKey(t.ID, t.OrderHash) }

// ReversalID is the id of the fill that takes back a failed trade.
func ReversalID(key string) string { return "r:" + key }

func (t *Trade) validate() error {
	bad := func(why string) error { return fmt.Errorf("trade %q: %s: %w", t.ID, why, ErrInvalid) }
	switch {
	case t.ID == "" || t.OrderHash == "":
		return bad("empty trade id or order hash")
	case len(t.Key()) > maxKeyLen:
		return bad("key too long")
	case t.TokenID == "":
		return bad("empty token id")
	case !t.Side.Valid():
		return bad(fmt.Sprintf("side %q", t.Side))
	case !t.Price.IsPositive() || !t.Size.IsPositive():
		return bad("price and size must be positive")
	case !tradeStatusValid(t.Status):
		return bad(fmt.Sprintf("status %q", t.Status))
	case t.UpdatedAt.IsZero():
		return bad("zero update time")
	}
	return nil
}

// PutTrade records a trade's settlement status. A trade already final
// changes no more (ok false). A FAILED trade's fill is taken back at once,
// in the same transaction (a Reversal fill, ReversalID): its position,
// collateral and PnL. It returns whether the record changed and whether
// this call reversed the fill.
func (tx *Tx) PutTrade(t Trade) (changed, reversed bool, err error) {
	if err := tx.writable(); err != nil {
		return false, false, err
	}
	if err := t.validate(); err != nil {
		return false, false, err
	}
	key := cstrKey(t.Key())
	prev, found, err := tx.trade(key)
	if err != nil {
		return false, false, err
	}
	if found {
		if TradeFinal(prev.Status) || prev.Status == t.Status {
			return false, false, nil
		}
		t.Reversed = prev.Reversed
		if prev.MatchedAt.Before(t.MatchedAt) || t.MatchedAt.IsZero() {
			t.MatchedAt = prev.MatchedAt
		}
	}
	if t.Status == TradeFailed && !t.Reversed {
		f := Fill{ID: ReversalID(t.Key()), OrderHash: t.OrderHash, ConditionID: t.ConditionID, TokenID: t.TokenID,
			Side: t.Side, Price: t.Price, Size: t.Size, Time: t.UpdatedAt, Reversal: true}
		if _, ok, _ := tx.find(t.OrderHash); !ok {
			f.External = true
		}
		if _, err := tx.AddFill(f); err != nil {
			return false, false, fmt.Errorf("trade %s: reversing its fill: %w", t.Key(), err)
		}
		t.Reversed, reversed = true, true
	}
	trades, open := tx.bucket(bucketTrades), tx.bucket(bucketTradesOpen)
	if t.Status == TradeConfirmed {
		if err := trades.Delete(key); err != nil {
			return false, false, err
		}
		return true, reversed, open.Delete(key)
	}
	raw, err := json.Marshal(&t)
	if err != nil {
		return false, false, fmt.Errorf("trade %s: encode: %w", t.Key(), err)
	}
	if err := trades.Put(key, raw); err != nil {
		return false, false, err
	}
	if TradeFinal(t.Status) {
		return true, reversed, open.Delete(key)
	}
	return true, reversed, open.Put(key, []byte{})
}

func (tx *Tx) trade(key []byte) (Trade, bool, error) {
	var t Trade
	b := tx.bucket(bucketTrades)
	if b == nil {
		return t, false, nil
	}
	raw := b.Get(key)
	if raw == nil {
		return t, false, nil
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, false, fmt.Errorf("trade %q: decode: %w", key, err)
	}
	return t, true, nil
}

// Trade returns the journal's record of a trade of an order (found false
// when it has none: never seen, or CONFIRMED).
func (tx *Tx) Trade(tradeID, orderHash string) (Trade, bool, error) {
	return tx.trade(cstrKey(TradeKey(tradeID, orderHash)))
}

// OpenTrades returns the trades not yet final.
func (tx *Tx) OpenTrades() ([]Trade, error) {
	var out []Trade
	b := tx.bucket(bucketTradesOpen)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, _ []byte) error {
		t, ok, err := tx.trade(k)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("open trade %q has no record: %w", k, ErrInvalid)
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// FailedTrades returns the FAILED trades updated at or after since, oldest
// first.
func (tx *Tx) FailedTrades(since time.Time) ([]Trade, error) {
	var out []Trade
	b := tx.bucket(bucketTrades)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		var t Trade
		if err := json.Unmarshal(v, &t); err != nil {
			return fmt.Errorf("trade %q: decode: %w", k, err)
		}
		if t.Status == TradeFailed && !t.UpdatedAt.Before(since) {
			out = append(out, t)
		}
		return nil
	})
	sortTrades(out)
	return out, err
}

func sortTrades(ts []Trade) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].UpdatedAt.Before(ts[j-1].UpdatedAt); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// OpenTrades returns the trades not yet final.
func (s *Store) OpenTrades() (out []Trade, err error) {
	err = s.View(func(tx *Tx) error { out, err = tx.OpenTrades(); return err })
	return out, err
}

// FailedTrades returns the FAILED trades updated at or after since, oldest
// first.
func (s *Store) FailedTrades(since time.Time) (out []Trade, err error) {
	err = s.View(func(tx *Tx) error { out, err = tx.FailedTrades(since); return err })
	return out, err
}

package exchange

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// GET /data/order/{id} comes in two shapes (docs/protocol.md, Live shapes):
// the spec's {"order": {...camelCase}} and the live exchange's order
// unwrapped, in snake_case, with order_type for type, created_at as Unix
// seconds and an expiration. Both decode into Order; an order read that
// lacks what the loop needs (id, status, original size, size matched,
// price) is a *FieldError, never an empty order.

// ParseOrderStatus reads an order status in any of the forms it arrives
// in: the spec's LIVE, MATCHED, CANCELED, in any case, with or without the
// live exchange's ORDER_STATUS_ prefix. CANCELLED, CANCELED_MARKET_RESOLVED
// and INVALID (an order the exchange took off the book) read as CANCELED;
// DELAYED and UNMATCHED (an order held back by the matching delay, still
// working) read as LIVE. Anything else is an error naming the value.
func ParseOrderStatus(s string) (string, error) {
	switch normalizeEnum(s, "ORDER_STATUS_") {
	case StatusLive, "DELAYED", "UNMATCHED":
		return StatusLive, nil
	case StatusMatched:
		return StatusMatched, nil
	case StatusCanceled, "CANCELLED", "CANCELED_MARKET_RESOLVED", "CANCELLED_MARKET_RESOLVED", "INVALID":
		return StatusCanceled, nil
	}
	return "", fmt.Errorf("status %q is not one of LIVE, MATCHED, CANCELED", clip([]byte(s), 60))
}

// UnmarshalJSON reads an order in the spec's camelCase or the live
// snake_case (keys are matched without regard to case and underscores).
func (o *Order) UnmarshalJSON(b []byte) error {
	const obj = "order"
	m, err := foldedObject(obj, b)
	if err != nil {
		return err
	}
	var out Order
	str := func(field, key string, dst *string) {
		if err == nil {
			*dst, err = stringField(obj, field, m[key])
		}
	}
	str("id", "id", &out.ID)
	str("market", "market", &out.Market)
	str("outcome", "outcome", &out.Outcome)
	str("makerAddress", "makeraddress", &out.MakerAddress)
	str("owner", "owner", &out.Owner)
	str("assetId", "assetid", &out.AssetID)
	var status, side, typ, orderType string
	str("status", "status", &status)
	str("side", "side", &side)
	str("type", "type", &typ)
	str("type (order_type)", "ordertype", &orderType)
	if err != nil {
		return err
	}
	if out.ID == "" {
		return absent(obj, "id")
	}
	obj2 := "order " + clip([]byte(out.ID), 80)
	if status == "" {
		return absent(obj2, "status")
	}
	if out.Status, err = ParseOrderStatus(status); err != nil {
		return &FieldError{Object: obj2, Field: "status", Reason: strings.TrimPrefix(err.Error(), "status ")}
	}
	out.Side = Side(strings.ToUpper(side))
	if typ != "" && orderType != "" && !strings.EqualFold(typ, orderType) {
		return &FieldError{Object: obj2, Field: "type", Reason: fmt.Sprintf("%q disagrees with order_type %q", typ, orderType)}
	}
	if typ == "" {
		typ = orderType
	}
	out.Type = OrderType(strings.ToUpper(typ))
	for _, f := range []struct {
		field, key string
		dst        *decimal.Decimal
	}{
		{"originalSize", "originalsize", &out.OriginalSize},
		{"sizeMatched", "sizematched", &out.SizeMatched},
		{"price", "price", &out.Price},
	} {
		d, ok, err := decimalField(obj2, f.field, m[f.key])
		if err != nil {
			return err
		}
		if !ok {
			return absent(obj2, f.field)
		}
		*f.dst = d
	}
	if raw := m["associatetrades"]; !isNull(raw) {
		if err := json.Unmarshal(raw, &out.AssociateTrades); err != nil {
			return &FieldError{Object: obj2, Field: "associateTrades", Reason: fmt.Sprintf("%s is not an array of strings", clip(raw, 40))}
		}
	}
	for _, f := range []struct {
		field, key string
		dst        *string
	}{
		{"createdAt", "createdat", &out.CreatedAt},
		{"updatedAt", "updatedat", &out.UpdatedAt},
	} {
		s, _, err := decodeWireTime(f.field, m[f.key])
		if err != nil {
			return &FieldError{Object: obj2, Field: f.field, Reason: strings.TrimPrefix(err.Error(), f.field+" ")}
		}
		*f.dst = s
	}
	if out.Expiration, err = expirationField(m["expiration"]); err != nil {
		return &FieldError{Object: obj2, Field: "expiration", Reason: err.Error()}
	}
	*o = out
	return nil
}

// expirationField keeps a live order's expiration (Unix seconds, "0" for
// none) as the digits that came, from a string or a JSON number.
func expirationField(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return "", nil
	}
	s := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", fmt.Errorf("%s is not a count of Unix seconds", clip(raw, 40))
		}
	}
	return s, nil
}

// UnmarshalJSON reads the body of GET /data/order/{id} wrapped as the spec
// shows ({"order": {...}}) or unwrapped as the live exchange sends it.
func (e *OrderEnvelope) UnmarshalJSON(b []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return fmt.Errorf("order: %w", err)
	}
	if top == nil {
		return fmt.Errorf("order: the body is null, want an object")
	}
	inner := b
	if raw, ok := top["order"]; ok {
		if isNull(raw) {
			return absent("order read", "order")
		}
		inner = raw
	}
	var o Order
	if err := json.Unmarshal(inner, &o); err != nil {
		return err
	}
	e.Order = o
	return nil
}

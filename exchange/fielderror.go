package exchange

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// FieldError is a response body that decoded but lacks a field its caller
// needs, or holds a value in none of the forms the spec and the live
// exchange use: an order read without an id, an unknown status, a time
// that is not a time. The client returns it (inside a *DecodeError) instead
// of an empty or default value.
type FieldError struct {
	Object string // what was being decoded: "order", "builder trade bt1"
	Field  string // the field as the spec names it (the live name in parentheses where it differs)
	Reason string // "is absent", "…is not one of …"
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("exchange: %s: %s %s", e.Object, e.Field, e.Reason)
}

// absent is the FieldError of a required field that is missing, null or "".
func absent(object, field string) *FieldError {
	return &FieldError{Object: object, Field: field, Reason: "is absent"}
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// stringField decodes an optional string member (absent or null give "").
func stringField(object, field string, raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &FieldError{Object: object, Field: field, Reason: fmt.Sprintf("%s is not a string", clip(raw, 40))}
	}
	return s, nil
}

// decimalField decodes an amount that the spec sends as a string and the
// live exchange as a string or a JSON number. present is false for an
// absent, null or "" member. A value that is not a decimal, is negative, or
// is too large to be an honest amount (see tame) is an error.
func decimalField(object, field string, raw json.RawMessage) (d decimal.Decimal, present bool, err error) {
	if isNull(raw) {
		return decimal.Decimal{}, false, nil
	}
	if t := bytes.TrimSpace(raw); string(t) == `""` {
		return decimal.Decimal{}, false, nil
	}
	var n Number
	if err := n.UnmarshalJSON(raw); err != nil {
		return decimal.Decimal{}, false, &FieldError{Object: object, Field: field, Reason: fmt.Sprintf("%s is not a decimal", clip(raw, 40))}
	}
	if !tame(n.Decimal) || n.Decimal.IsNegative() {
		return decimal.Decimal{}, false, &FieldError{Object: object, Field: field, Reason: fmt.Sprintf("%s is not an amount", clip(raw, 40))}
	}
	return n.Decimal, true, nil
}

// normalizeEnum upper-cases s and strips a protobuf-style prefix
// ("ORDER_STATUS_LIVE" → "LIVE"). Hyphens and spaces read as underscores.
func normalizeEnum(s, prefix string) string {
	u := strings.ToUpper(strings.TrimSpace(s))
	u = strings.NewReplacer("-", "_", " ", "_").Replace(u)
	return strings.TrimPrefix(u, prefix)
}

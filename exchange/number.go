package exchange

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/shopspring/decimal"
)

// Number is an exact decimal that travels as a JSON number, as the data API
// and the numeric fields of order-book market listings send it. It decodes a
// JSON number, a quoted decimal string, or null (which gives zero), and it
// always encodes as an unquoted number. The zero value is 0.
type Number struct {
	decimal.Decimal
}

// NewNumber wraps d.
func NewNumber(d decimal.Decimal) Number { return Number{Decimal: d} }

// MustNumber parses s and panics if it is not a decimal. It is meant for
// constants in tests and examples, never for input.
func MustNumber(s string) Number { return Number{Decimal: decimal.RequireFromString(s)} }

// Dec returns the wrapped decimal.
func (n Number) Dec() decimal.Decimal { return n.Decimal }

// MarshalJSON encodes n as an unquoted JSON number.
func (n Number) MarshalJSON() ([]byte, error) {
	return []byte(n.Decimal.String()), nil
}

// UnmarshalJSON accepts a JSON number, a quoted decimal string ("" is zero)
// or null (zero).
func (n *Number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		n.Decimal = decimal.Decimal{}
		return nil
	}
	s := string(b)
	if b[0] == '"' {
		u, err := strconv.Unquote(s)
		if err != nil {
			return fmt.Errorf("exchange: number %s: %w", clip(b, 40), err)
		}
		if u == "" {
			n.Decimal = decimal.Decimal{}
			return nil
		}
		s = u
	} else if !isJSONNumber(b) {
		return fmt.Errorf("exchange: number: not a number: %s", clip(b, 40))
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return fmt.Errorf("exchange: number %q: %w", clip([]byte(s), 40), err)
	}
	n.Decimal = d
	return nil
}

// isJSONNumber reports whether b starts like a JSON number (the decoder has
// already checked the full syntax when b came from encoding/json).
func isJSONNumber(b []byte) bool {
	c := b[0]
	return c == '-' || (c >= '0' && c <= '9')
}

// clip returns at most n bytes of b, with "..." when it was cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}

package exchange

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// A builder trade comes in two shapes (docs/protocol.md, Live shapes): the
// spec's, with match_time and last_update as ISO 8601 and the taker/maker
// role in type, and the live exchange's, with the times as strings of Unix
// seconds and the role in trader_side (no type). Both decode into
// BuilderTrade: times are rewritten as ISO 8601, Type holds the role
// whichever field carried it, and TraderSide keeps the live field as sent.

// Builder trade roles (the type field; trader_side on the live exchange).
const (
	RoleTaker = "TAKER"
	RoleMaker = "MAKER"
)

// ParseTradeStatus reads a builder trade status in any case, with or
// without a TRADE_STATUS_ prefix; anything but MATCHED, MINED, CONFIRMED,
// RETRYING and FAILED is an error naming the value.
func ParseTradeStatus(s string) (string, error) {
	switch u := normalizeEnum(s, "TRADE_STATUS_"); u {
	case TradeMatched, TradeMined, TradeConfirmed, TradeRetrying, TradeFailed:
		return u, nil
	}
	return "", fmt.Errorf("status %q is not one of MATCHED, MINED, CONFIRMED, RETRYING, FAILED", clip([]byte(s), 60))
}

// parseRole reads TAKER or MAKER in any case.
func parseRole(s string) (string, bool) {
	switch u := strings.ToUpper(strings.TrimSpace(s)); u {
	case RoleTaker, RoleMaker:
		return u, true
	}
	return "", false
}

// UnmarshalJSON reads a builder trade in either shape. A trade without an
// id, a status or a match_time, or with a value none of the shapes uses
// (an unknown status or role, a time that is not a time), is a
// *FieldError.
func (t *BuilderTrade) UnmarshalJSON(b []byte) error {
	type plain BuilderTrade // the fields as they are, without this method
	var w struct {
		plain
		MatchTime  json.RawMessage `json:"match_time"`
		LastUpdate json.RawMessage `json:"last_update"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := BuilderTrade(w.plain)
	if out.ID == "" {
		return absent("builder trade", "id")
	}
	obj := "builder trade " + clip([]byte(out.ID), 80)
	if out.Status == "" {
		return absent(obj, "status")
	}
	st, err := ParseTradeStatus(out.Status)
	if err != nil {
		return &FieldError{Object: obj, Field: "status", Reason: strings.TrimPrefix(err.Error(), "status ")}
	}
	out.Status = st
	var ok bool
	if out.MatchTime, ok, err = decodeWireTime("match_time", w.MatchTime); err != nil {
		return &FieldError{Object: obj, Field: "match_time", Reason: strings.TrimPrefix(err.Error(), "match_time ")}
	} else if !ok {
		return absent(obj, "match_time")
	}
	if out.LastUpdate, _, err = decodeWireTime("last_update", w.LastUpdate); err != nil {
		return &FieldError{Object: obj, Field: "last_update", Reason: strings.TrimPrefix(err.Error(), "last_update ")}
	}
	typ, side := out.Type, out.TraderSide
	if typ != "" {
		if out.Type, ok = parseRole(typ); !ok {
			return &FieldError{Object: obj, Field: "type", Reason: fmt.Sprintf("%q is not TAKER or MAKER", clip([]byte(typ), 40))}
		}
	}
	if side != "" {
		r, ok := parseRole(side)
		if !ok {
			return &FieldError{Object: obj, Field: "type (trader_side)", Reason: fmt.Sprintf("%q is not TAKER or MAKER", clip([]byte(side), 40))}
		}
		if out.Type != "" && out.Type != r {
			return &FieldError{Object: obj, Field: "type", Reason: fmt.Sprintf("%q disagrees with trader_side %q", typ, side)}
		}
		out.Type = r
	}
	if out.Type == "" {
		return absent(obj, "type (trader_side)")
	}
	*t = out
	return nil
}

// MatchedAt returns the trade's match time (zero if it has none).
func (t *BuilderTrade) MatchedAt() time.Time {
	at, _ := ParseWireTime(t.MatchTime)
	return at
}

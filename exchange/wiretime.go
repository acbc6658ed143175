package exchange

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The spec writes order-book times as ISO 8601 date-time strings; the live
// exchange writes some of them as Unix seconds, in a string ("1726043102")
// or as a JSON number (an order's created_at). parseWireTime reads every
// one of these forms (docs/protocol.md, Live shapes).

// unixMillisFrom is where a count of Unix time stops reading as seconds and
// starts reading as milliseconds: 10^11 seconds is the year 5138, 10^11
// milliseconds is March 1973. No honest time of this exchange is before
// 1973 in milliseconds or after 5138 in seconds.
const unixMillisFrom = 100_000_000_000

// maxUnixMillis bounds a count of milliseconds (the year 9999).
const maxUnixMillis = 253_402_300_799_999

// parseUnixCount reads a decimal count of Unix seconds or milliseconds
// (told apart by size, see unixMillisFrom).
func parseUnixCount(s string) (time.Time, bool) {
	if s == "" || len(s) > 16 {
		return time.Time{}, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return time.Time{}, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > maxUnixMillis {
		return time.Time{}, false
	}
	if n >= unixMillisFrom {
		return time.UnixMilli(n).UTC(), true
	}
	return time.Unix(n, 0).UTC(), true
}

// ParseWireTime parses an order-book time as either shape sends it: an ISO
// 8601 date-time (what ParseDate reads) or a decimal count of Unix seconds
// or milliseconds. An empty string gives the zero time and ok == false.
func ParseWireTime(s string) (t time.Time, ok bool) {
	if t, ok := parseUnixCount(s); ok {
		return t, true
	}
	return ParseDate(s)
}

// formatWireTime writes t as the spec does: ISO 8601 in UTC, with
// milliseconds when t has any.
func formatWireTime(t time.Time) string {
	if t.Nanosecond() != 0 {
		return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
	return t.UTC().Format(time.RFC3339)
}

// decodeWireTime reads one time field: a JSON string in any form
// ParseWireTime reads, or a JSON number of Unix seconds or milliseconds.
// It returns the time in the spec's form: an ISO string is kept as it came
// (so that a decode/encode round trip is exact) and a Unix count is
// rewritten as ISO 8601. Absent, null and "" give "" and present == false;
// anything else that is not a time is an error naming field.
func decodeWireTime(field string, raw json.RawMessage) (iso string, present bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, fmt.Errorf("%s: %w", field, err)
		}
		if s == "" {
			return "", false, nil
		}
	} else {
		s = string(raw)
	}
	if t, ok := parseUnixCount(s); ok {
		return formatWireTime(t), true, nil
	}
	if raw[0] == '"' {
		if _, ok := ParseDate(s); ok {
			return s, true, nil
		}
	}
	return "", false, fmt.Errorf("%s %s is neither an ISO 8601 date-time nor Unix seconds or milliseconds", field, clip(raw, 40))
}

// canonicalKey folds a JSON key so that the spec's camelCase and the live
// exchange's snake_case name the same field: "sizeMatched", "size_matched"
// and "SizeMatched" all give "sizematched".
func canonicalKey(k string) string {
	return strings.ToLower(strings.ReplaceAll(k, "_", ""))
}

// foldedObject decodes a JSON object into its members keyed by
// canonicalKey. Two keys that fold to the same name (sizeMatched and
// size_matched in one object) are an error: which one the sender meant is
// unknown. what names the object in errors.
func foldedObject(what string, b []byte) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s: null, want an object", what)
	}
	out := make(map[string]json.RawMessage, len(raw))
	names := make(map[string]string, len(raw))
	for k, v := range raw {
		c := canonicalKey(k)
		if prev, dup := names[c]; dup {
			a, b := prev, k
			if a > b {
				a, b = b, a
			}
			return nil, fmt.Errorf("%s: %q and %q name the same field", what, a, b)
		}
		names[c] = k
		out[c] = v
	}
	return out, nil
}

package status

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// The formats of the table, shared with the daemon's summary and the other
// commands' output so that a number reads the same everywhere.

// Span formats a span shown to people in whole seconds without zero units:
// "12s", "1m", "1m5s", "2h", "1h0m5s" (not "1m0s" or "2h0m0s").
func Span(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// Signed is d to 4 decimals with its sign: "+1.2500", "-0.0100".
func Signed(d decimal.Decimal) string {
	s := d.StringFixed(4)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// ShortID shortens a long identifier (a condition id, an order hash) to
// its first 8 and last 4 characters.
func ShortID(s string) string {
	if len(s) > 12 {
		return s[:8] + "…" + s[len(s)-4:]
	}
	return s
}

// Trunc cuts s to n runes, the last one an ellipsis when it was longer.
func Trunc(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// CountsList formats counts by name, largest first (then by name):
// "market_position 9, total_collateral_at_risk 3".
func CountsList(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// CountsSuffix is " (CountsList)", or "" when there is nothing to list.
func CountsSuffix(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	return " (" + CountsList(m) + ")"
}

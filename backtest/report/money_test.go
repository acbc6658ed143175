package report

import (
	"testing"

	"github.com/shopspring/decimal"
)

// Amounts are shown to sensible precision: cents from 1 up, four decimals
// below, never the raw "177.29328".
func TestMoneyPrecision(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"177.29328", "177.29"},
		{"-12.345", "-12.35"},
		{"3", "3"},
		{"1.5", "1.5"},
		{"0.034512", "0.0345"},
		{"-0.00004", "0"},
		{"0", "0"},
		{"0.5", "0.5"},
		{"135.7", "135.7"},
	} {
		if got := money(decimal.RequireFromString(tc.in)); got != tc.want {
			t.Errorf("money(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

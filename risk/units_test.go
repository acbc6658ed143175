package risk

import (
	"math"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// The conversions themselves are exchange.Fixed's and tested there (with
// the cases this package's micro-unit helpers had); what risk adds is the
// clamp of mulUp, saturating addition and the fair value.

func TestMulUp(t *testing.T) {
	cases := []struct{ a, b, want exchange.Fixed }{
		{550_000, 10_000_000, 5_500_000}, // 0.55 × 10 = 5.5
		{1, 1, 1},                        // 10^-12 rounds up to one base unit
		{0, 5, 0},
		{-1, 5, 0},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64},
	}
	for _, c := range cases {
		if got := mulUp(c.a, c.b); got != c.want {
			t.Errorf("mulUp(%d,%d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestSatAdd(t *testing.T) {
	cases := []struct{ a, b, want exchange.Fixed }{
		{1, 2, 3},
		{exchange.MaxFixed, 1, exchange.MaxFixed},
		{exchange.MinFixed, -1, exchange.MinFixed},
		{exchange.MaxFixed, exchange.MinFixed, -1},
	}
	for _, c := range cases {
		if got := satAdd(c.a, c.b); got != c.want {
			t.Errorf("satAdd(%d,%d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestFairValue(t *testing.T) {
	cases := []struct {
		in   float64
		want exchange.Fixed
	}{
		{0.55, 550_000}, {1e-9, 1}, {1 - 1e-9, 999_999}, {0, 0}, {1, 0}, {math.NaN(), 0}, {-0.5, 0},
	}
	for _, c := range cases {
		if got := fairValue(c.in); got != c.want {
			t.Errorf("fairValue(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

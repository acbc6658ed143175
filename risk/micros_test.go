package risk

import (
	"math"
	"testing"

	"github.com/shopspring/decimal"
)

var microCases = []struct {
	in       string
	up, down int64
	ok       bool
}{
	{"0", 0, 0, true},
	{"1", 1_000_000, 1_000_000, true},
	{"0.55", 550_000, 550_000, true},
	{"12.34", 12_340_000, 12_340_000, true},
	{"0.0000001", 1, 0, true},
	{"-0.0000001", 0, -1, true},
	{"0.1234567", 123_457, 123_456, true},
	{"-2.5", -2_500_000, -2_500_000, true},
	{"1e-30", 1, 0, true},
	{"9223372036854.775807", 9223372036854775807, 9223372036854775807, true},
	{"9223372036855", math.MaxInt64, math.MaxInt64, false},
	{"1e40", math.MaxInt64, math.MaxInt64, false},
	{"0.1234567890123456789012", 123_457, 123_456, true},
}

func TestMicros(t *testing.T) {
	for _, c := range microCases {
		d := decimal.RequireFromString(c.in)
		up, okU := microsUp(d)
		down, okD := microsDown(d)
		if up != c.up || down != c.down || okU != c.ok || okD != c.ok {
			t.Errorf("%s: up %d,%v down %d,%v; want %d %d %v", c.in, up, okU, down, okD, c.up, c.down, c.ok)
		}
	}
}

func FuzzMicros(f *testing.F) {
	for _, c := range microCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil || d.Exponent() < -60 || d.Exponent() > 60 {
			return
		}
		up, okU := microsUp(d)
		down, okD := microsDown(d)
		if okU != okD {
			t.Fatalf("%s: ok differs", s)
		}
		if !okU {
			return
		}
		if up < down || up-down > 1 {
			t.Fatalf("%s: up %d down %d", s, up, down)
		}
		// down ≤ d·10^6 ≤ up, exactly.
		scaled := d.Shift(6)
		if decimal.NewFromInt(down).GreaterThan(scaled) || decimal.NewFromInt(up).LessThan(scaled) {
			t.Fatalf("%s: %d..%d does not bracket %s", s, down, up, scaled)
		}
	})
}

func TestMulMicros(t *testing.T) {
	cases := []struct{ a, b, want int64 }{
		{550_000, 10_000_000, 5_500_000}, // 0.55 × 10 = 5.5
		{1, 1, 1},                        // 10^-12 rounds up to one micro-unit
		{0, 5, 0},
		{-1, 5, 0},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64},
	}
	for _, c := range cases {
		if got := mulMicros(c.a, c.b); got != c.want {
			t.Errorf("mulMicros(%d,%d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestFmtMicros(t *testing.T) {
	cases := map[int64]string{0: "0", 1: "0.000001", 550_000: "0.55", -2_500_000: "-2.5", 12_000_000: "12"}
	for in, want := range cases {
		if got := fmtMicros(in); got != want {
			t.Errorf("fmtMicros(%d) = %q, want %q", in, got, want)
		}
	}
}

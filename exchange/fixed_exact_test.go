package exchange

// The exact-conversion cases of the backtest's former Fixed type, kept as
// they were when the type moved here (fixed_test.go has the rest).

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"
)

var exactCases = []struct {
	in   string
	want Fixed
	str  string
	err  error
}{
	{"0", 0, "0", nil},
	{"0.48", 480_000, "0.48", nil},
	{".48", 480_000, "0.48", nil},
	{"30", 30_000_000, "30", nil},
	{"219.217767", 219_217_767, "219.217767", nil},
	{"-1.5", -1_500_000, "-1.5", nil},
	{"0.000001", 1, "0.000001", nil},
	{"0.0000010", 1, "0.000001", nil},
	{"1e-6", 1, "0.000001", nil},
	{"1.2000000000000000000000", 1_200_000, "1.2", nil},
	{"0.0000001", 0, "", ErrInexact},
	{"9223372036854.775807", 9223372036854775807, "9223372036854.775807", nil},
	{"9223372036855", 0, "", ErrOverflow},
	{"1e30", 0, "", ErrOverflow},
	{"0e30", 0, "0", nil},
	{"1e-30", 0, "", ErrInexact},
	{"123456789012345678901234567890", 0, "", ErrOverflow},
}

func TestFixed(t *testing.T) {
	for _, c := range exactCases {
		got, err := ParseFixed(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("ParseFixed(%q) error = %v, want %v", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFixed(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("ParseFixed(%q) = %d, want %d", c.in, got, c.want)
		}
		if s := got.String(); s != c.str {
			t.Errorf("Fixed(%d).String() = %q, want %q", got, s, c.str)
		}
		if !got.Decimal().Equal(decimal.RequireFromString(c.in)) {
			t.Errorf("Decimal() of %q = %s", c.in, got.Decimal())
		}
	}
	if f, _ := ParseFixed("0.5"); f != FixedScale/2 {
		t.Error("ParseFixed(0.5)")
	}
	if _, err := ParseFixed("abc"); err == nil {
		t.Error("ParseFixed(abc) succeeded")
	}
}

func TestFixedFromDecimalNoAlloc(t *testing.T) {
	d := decimal.RequireFromString("0.4875")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := FixedFromDecimal(d); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("FixedFromDecimal allocates %.0f times", allocs)
	}
}

func FuzzFixed(f *testing.F) {
	for _, c := range exactCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil {
			return
		}
		x, err := FixedFromDecimal(d)
		if err != nil {
			return
		}
		if !x.Decimal().Equal(d) {
			t.Fatalf("%q -> %d -> %s: not exact", s, x, x.Decimal())
		}
		y, err := ParseFixed(x.String())
		if err != nil || y != x {
			t.Fatalf("String round trip of %d: %q -> %d, %v", x, x.String(), y, err)
		}
	})
}

// TestParseFixedFast: the plain form that ParseFixedBytes parses without
// decimal (the recording decoder's fast path before the type moved here).
func TestParseFixedFast(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Fixed
		ok   bool
	}{
		{"0.48", 480_000, true}, {".48", 480_000, true}, {"5.", 5_000_000, true}, {"-1.25", -1_250_000, true},
		{"123456789012.123456", 123456789012_123456, true}, {"1234567890123", 0, false},
		{"0.1234567", 0, false}, {"1e3", 0, false}, {"", 0, false}, {"-", 0, false}, {".", 0, false}, {"1.2.3", 0, false},
	} {
		got, ok := parsePlain([]byte(c.in))
		if ok != c.ok || ok && got != c.want {
			t.Errorf("parsePlain(%q) = %d, %v", c.in, got, ok)
		}
	}
	if d := Fixed(10_000).Decimal(); d.Exponent() != -2 || d.String() != "0.01" {
		t.Errorf("Fixed(10_000).Decimal() = %s exp %d", d, d.Exponent())
	}
}

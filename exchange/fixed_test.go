package exchange

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"
)

var fixedCases = []struct {
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
	for _, c := range fixedCases {
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
	for _, c := range fixedCases {
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

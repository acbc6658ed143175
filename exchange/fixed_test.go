package exchange

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

var modes = [...]Rounding{RoundExact, RoundFloor, RoundCeil, RoundTrunc}

// over is a set of rounding modes that overflow, for the tables.
type over uint8

const (
	ovFloor over = 1 << RoundFloor
	ovCeil  over = 1 << RoundCeil
	ovRound over = ovFloor | ovCeil // rounding overflows; RoundExact fails with ErrInexact first
	ovAll   over = 1<<RoundExact | ovRound
)

func (o over) has(r Rounding) bool { return o&(1<<r) != 0 }

// fixedCases: FixedRound with RoundFloor and RoundCeil (saturated where
// they overflow); RoundTrunc is one of the two by the sign; RoundExact and
// FixedFromDecimal fail with err, or give floor (= ceil). str is String of
// an exact value. The first cases are backtest's, then risk's micro-unit
// cases, then the edges of the range and of the slow path.
var fixedCases = []struct {
	in          string
	floor, ceil Fixed
	ov          over  // modes that overflow (trunc: as floor or ceil by sign)
	err         error // of the exact conversion
	str         string
}{
	{"0", 0, 0, 0, nil, "0"},
	{"0.48", 480_000, 480_000, 0, nil, "0.48"},
	{".48", 480_000, 480_000, 0, nil, "0.48"},
	{"30", 30_000_000, 30_000_000, 0, nil, "30"},
	{"219.217767", 219_217_767, 219_217_767, 0, nil, "219.217767"},
	{"-1.5", -1_500_000, -1_500_000, 0, nil, "-1.5"},
	{"0.000001", 1, 1, 0, nil, "0.000001"},
	{"0.0000010", 1, 1, 0, nil, "0.000001"},
	{"1e-6", 1, 1, 0, nil, "0.000001"},
	{"1.2000000000000000000000", 1_200_000, 1_200_000, 0, nil, "1.2"},
	{"0.0000001", 0, 1, 0, ErrInexact, ""},
	{"9223372036854.775807", MaxFixed, MaxFixed, 0, nil, "9223372036854.775807"},
	{"9223372036855", MaxFixed, MaxFixed, ovAll, ErrOverflow, ""},
	{"1e30", MaxFixed, MaxFixed, ovAll, ErrOverflow, ""},
	{"0e30", 0, 0, 0, nil, "0"},
	{"1e-30", 0, 1, 0, ErrInexact, ""},
	{"123456789012345678901234567890", MaxFixed, MaxFixed, ovAll, ErrOverflow, ""},

	{"1", 1_000_000, 1_000_000, 0, nil, "1"},
	{"0.55", 550_000, 550_000, 0, nil, "0.55"},
	{"12.34", 12_340_000, 12_340_000, 0, nil, "12.34"},
	{"12", 12_000_000, 12_000_000, 0, nil, "12"},
	{"123.45", 123_450_000, 123_450_000, 0, nil, "123.45"},
	{"-2.5", -2_500_000, -2_500_000, 0, nil, "-2.5"},
	{"-0.0000001", -1, 0, 0, ErrInexact, ""},
	{"0.1234567", 123_456, 123_457, 0, ErrInexact, ""},
	{"1e40", MaxFixed, MaxFixed, ovAll, ErrOverflow, ""},
	{"0.1234567890123456789012", 123_456, 123_457, 0, ErrInexact, ""},

	{"-9223372036854.775808", MinFixed, MinFixed, 0, nil, "-9223372036854.775808"},
	{"-9223372036854.775809", MinFixed, MinFixed, ovAll, ErrOverflow, ""},
	{"9223372036854.7758071", MaxFixed, MaxFixed, ovCeil, ErrInexact, ""},
	{"-9223372036854.7758081", MinFixed, MinFixed, ovFloor, ErrInexact, ""},
	{"-9223372036854.7758071", MinFixed, -9223372036854775807, 0, ErrInexact, ""},
	{"1234567890123456789012345e-7", MaxFixed, MaxFixed, ovRound, ErrInexact, ""},
	{"-0.9999999", -1_000_000, -999_999, 0, ErrInexact, ""},
	{"0.0000005", 0, 1, 0, ErrInexact, ""},
	{"-5e-7", -1, 0, 0, ErrInexact, ""},
	{"999999999999999999e-24", 0, 1, 0, ErrInexact, ""},
	{"-999999999999999999e-24", -1, 0, 0, ErrInexact, ""},
	{"999999999999999999e-6", 999_999_999_999_999_999, 999_999_999_999_999_999, 0, nil, "999999999999.999999"},
	{"100000000000000000000000e-18", 100_000_000_000, 100_000_000_000, 0, nil, "100000"},
	{"12345678901234567890123e-1000000000", 0, 1, 0, ErrInexact, ""},
	{"-12345678901234567890123e-1000000000", -1, 0, 0, ErrInexact, ""},
	{"1e-1000000000", 0, 1, 0, ErrInexact, ""},
	{"-1e1000000000", MinFixed, MinFixed, ovAll, ErrOverflow, ""},
	{"0e-1000000000", 0, 0, 0, nil, "0"},
}

// dec parses a table's decimal; it builds exponents beyond the decoder's
// limit (MaxDecodeExponent) itself.
func dec(t testing.TB, s string) decimal.Decimal {
	t.Helper()
	mant, exp, ok := strings.Cut(s, "e")
	e, err := strconv.ParseInt(exp, 10, 32)
	if !ok || err != nil || e > -10_000 && e < 10_000 {
		return decimal.RequireFromString(s)
	}
	m := decimal.RequireFromString(mant)
	return decimal.NewFromBigInt(m.Coefficient(), m.Exponent()+int32(e))
}

// wantRound is what the table says FixedRound(d, r) gives.
func wantRound(d decimal.Decimal, floor, ceil Fixed, ov over, exactErr error, r Rounding) (Fixed, error) {
	switch {
	case r == RoundTrunc && d.IsNegative(), r == RoundCeil:
		r = RoundCeil
	case r == RoundTrunc, r == RoundFloor:
		r = RoundFloor
	case exactErr == ErrInexact:
		return 0, ErrInexact
	case exactErr == ErrOverflow:
		return saturated(d.IsNegative()), ErrOverflow
	default:
		return floor, nil
	}
	v := floor
	if r == RoundCeil {
		v = ceil
	}
	if ov.has(r) {
		return v, ErrOverflow
	}
	return v, nil
}

func TestFixedRound(t *testing.T) {
	for _, c := range fixedCases {
		d := dec(t, c.in)
		for _, r := range modes {
			want, wantErr := wantRound(d, c.floor, c.ceil, c.ov, c.err, r)
			got, err := FixedRound(d, r)
			if got != want || !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
				t.Errorf("FixedRound(%s, %s) = %d, %v; want %d, %v", c.in, r, got, err, want, wantErr)
			}
		}
		got, err := FixedFromDecimal(d)
		if want := c.floor; c.err != nil {
			if got != 0 || !errors.Is(err, c.err) {
				t.Errorf("FixedFromDecimal(%s) = %d, %v; want 0, %v", c.in, got, err, c.err)
			}
			continue
		} else if got != want || err != nil {
			t.Errorf("FixedFromDecimal(%s) = %d, %v; want %d", c.in, got, err, want)
			continue
		}
		if _, err := decimal.NewFromString(c.in); err != nil {
			// beyond the decoder's exponent limit
		} else if p, err := ParseFixed(c.in); p != got || err != nil {
			t.Errorf("ParseFixed(%q) = %d, %v; want %d", c.in, p, err, got)
		}
		if s := got.String(); s != c.str {
			t.Errorf("Fixed(%d).String() = %q, want %q", got, s, c.str)
		}
		if !got.Decimal().Equal(d) {
			t.Errorf("Decimal() of %q = %s", c.in, got.Decimal())
		}
	}
}

func TestFixedErrors(t *testing.T) {
	for _, tc := range []struct {
		err  func() error
		want string
	}{
		{func() error { _, err := FixedFromDecimal(decimal.New(1, -1_000_000_000)); return err }, "exchange: more than 6 decimal places: 1e-1000000000"},
		{func() error { _, err := ParseFixed("-0.1234567"); return err }, "exchange: more than 6 decimal places: -0.1234567"},
		{func() error { _, err := FixedRound(decimal.New(5, 1<<30), RoundFloor); return err }, "exchange: out of the range of Fixed: 5e1073741824"},
		{func() error { _, err := ParseFixed("x"); return err }, `exchange: parse "x": can't convert x to decimal`},
		{func() error { _, err := MaxFixed.Mul(2*FixedScale, RoundCeil); return err }, "exchange: out of the range of Fixed: 9223372036854.775807 × 2"},
		{func() error { _, err := Fixed(1).Div(3, RoundExact); return err }, "exchange: more than 6 decimal places: 0.000001 / 0.000003"},
	} {
		if err := tc.err(); err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	if got := Rounding(7).String(); got != "Rounding(7)" {
		t.Errorf("Rounding(7).String() = %q", got)
	}
	for _, f := range []func(){
		func() { _, _ = FixedRound(decimal.Zero, Rounding(4)) },
		func() { _, _ = Fixed(1).Mul(1, Rounding(4)) },
		func() { _, _ = Fixed(1).Div(0, RoundExact) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

// arithCases: Mul (div false) or Div (div true) of a and b, with RoundFloor
// and RoundCeil; RoundTrunc is one of the two by the sign; RoundExact fails
// with ErrOverflow when ov says so, with ErrInexact when rounding changes or
// overflows the value, and gives floor otherwise.
// The first Mul cases are risk's mulMicros cases.
var arithCases = []struct {
	a, b        Fixed
	div         bool
	floor, ceil Fixed
	ov          over
}{
	{550_000, 10_000_000, false, 5_500_000, 5_500_000, 0}, // 0.55 × 10 = 5.5
	{1, 1, false, 0, 1, 0},                                // 10^-12
	{0, 5, false, 0, 0, 0},
	{-1, 5, false, -1, 0, 0},
	{MaxFixed, MaxFixed, false, MaxFixed, MaxFixed, ovRound},
	{MinFixed, MinFixed, false, MaxFixed, MaxFixed, ovRound},
	{MinFixed, FixedScale, false, MinFixed, MinFixed, 0},
	{MinFixed, -FixedScale, false, MaxFixed, MaxFixed, ovAll},
	{MaxFixed, -FixedScale, false, -MaxFixed, -MaxFixed, 0},
	{MaxFixed, FixedScale + 1, false, MaxFixed, MaxFixed, ovRound},
	{MaxFixed - 775_807, FixedScale + 1, false, MaxFixed, MaxFixed, ovAll},
	{123_456_789, 987_654_321, false, 121_932_631_112, 121_932_631_113, 0},
	{-123_456_789, 987_654_321, false, -121_932_631_113, -121_932_631_112, 0},
	{560_000, 21_040_000, false, 11_782_400, 11_782_400, 0}, // signer: BUY 21.04 at 0.56
	{9_999_999_999_999_999, 9_999_999_999_999_999, false, MaxFixed, MaxFixed, ovRound},
	{-1_000_003, 9_223_344_366_821_675_342, false, MinFixed, MinFixed + 1, 0},
	{-1_000_003, 9_223_344_366_821_675_343, false, MinFixed, MinFixed, ovFloor},

	{1, 3, true, 333_333, 333_334, 0},
	{-1, 3, true, -333_334, -333_333, 0},
	{4_000_000, 10_000_000, true, 400_000, 400_000, 0}, // sim: a BUY's price from its amounts
	{1234, 10_000, true, 123_400, 123_400, 0},
	{MaxFixed, 1, true, MaxFixed, MaxFixed, ovAll},
	{MinFixed, FixedScale, true, MinFixed, MinFixed, 0},
	{MinFixed, -FixedScale, true, MaxFixed, MaxFixed, ovAll},
	{0, -7, true, 0, 0, 0},
	{-9_223_372_036_854, 1, true, -9_223_372_036_854_000_000, -9_223_372_036_854_000_000, 0},
}

func TestFixedArith(t *testing.T) {
	for _, c := range arithCases {
		op, name := Fixed.Mul, "Mul"
		if c.div {
			op, name = Fixed.Div, "Div"
		}
		neg := (c.a < 0) != (c.b < 0)
		for _, r := range modes {
			want, wantErr := c.floor, error(nil)
			switch {
			case r == RoundCeil, r == RoundTrunc && neg:
				want = c.ceil
				if c.ov.has(RoundCeil) {
					wantErr = ErrOverflow
				}
			case r == RoundFloor, r == RoundTrunc:
				if c.ov.has(RoundFloor) {
					wantErr = ErrOverflow
				}
			case c.ov.has(RoundExact):
				wantErr = ErrOverflow
			case c.floor != c.ceil || c.ov != 0:
				want, wantErr = 0, ErrInexact
			}
			got, err := op(c.a, c.b, r)
			if got != want || !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
				t.Errorf("%d.%s(%d, %s) = %d, %v; want %d, %v", c.a, name, c.b, r, got, err, want, wantErr)
			}
		}
	}
}

func TestFixedNoAlloc(t *testing.T) {
	d := decimal.RequireFromString("0.4875")
	e := decimal.RequireFromString("-0.48751234")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := FixedFromDecimal(d); err != nil {
			t.Fatal(err)
		}
		if _, err := FixedRound(e, RoundFloor); err != nil {
			t.Fatal(err)
		}
		if _, err := Fixed(487_500).Mul(21_040_000, RoundCeil); err != nil {
			t.Fatal(err)
		}
		if _, err := Fixed(4_000_000).Div(10_000_000, RoundExact); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("the conversions allocate %.0f times", allocs)
	}
}

// refRound is the reference for FixedRound: d × 10^6 rounded by big
// decimal arithmetic, and whether RoundExact must fail.
func refRound(d decimal.Decimal, r Rounding) (v decimal.Decimal, inexact bool) {
	s := d.Shift(FixedDecimals)
	switch r {
	case RoundFloor:
		return s.Floor(), false
	case RoundCeil:
		return s.Ceil(), false
	case RoundTrunc:
		return s.Truncate(0), false
	}
	return s, !s.IsInteger()
}

var minFixedDec, maxFixedDec = decimal.NewFromInt(math.MinInt64), decimal.NewFromInt(math.MaxInt64)

// FuzzFixedRound checks FixedRound in every mode, FixedFromDecimal and
// ParseFixed against big-decimal rounding, and the round trips of what
// converts exactly.
func FuzzFixedRound(f *testing.F) {
	for _, c := range fixedCases {
		for _, r := range modes {
			f.Add(c.in, uint8(r))
		}
	}
	f.Fuzz(func(t *testing.T, s string, mode uint8) {
		d, err := decimal.NewFromString(s)
		if err != nil {
			return
		}
		r := Rounding(mode % 4)
		got, err := FixedRound(d, r)
		if e := d.Exponent(); e < -100 || e > 100 {
			return // the reference would expand the exponent
		}
		ref, inexact := refRound(d, r)
		switch {
		case inexact:
			if got != 0 || !errors.Is(err, ErrInexact) {
				t.Fatalf("FixedRound(%s, %s) = %d, %v; want ErrInexact", s, r, got, err)
			}
		case ref.LessThan(minFixedDec) || ref.GreaterThan(maxFixedDec):
			if got != saturated(d.IsNegative()) || !errors.Is(err, ErrOverflow) {
				t.Fatalf("FixedRound(%s, %s) = %d, %v; want saturated, ErrOverflow", s, r, got, err)
			}
		case err != nil || !decimal.NewFromInt(int64(got)).Equal(ref):
			t.Fatalf("FixedRound(%s, %s) = %d, %v; want %s", s, r, got, err, ref)
		}
		if r != RoundExact {
			return
		}
		x, err2 := FixedFromDecimal(d)
		if p, err3 := ParseFixed(s); p != x || (err2 == nil) != (err3 == nil) {
			t.Fatalf("ParseFixed(%q) = %d, %v; FixedFromDecimal %d, %v", s, p, err3, x, err2)
		}
		if err != nil {
			if x != 0 || !errors.Is(err2, ErrInexact) && !errors.Is(err2, ErrOverflow) {
				t.Fatalf("FixedFromDecimal(%s) = %d, %v", s, x, err2)
			}
			return
		}
		if x != got || err2 != nil || !x.Decimal().Equal(d) {
			t.Fatalf("%q -> %d, %v -> %s: not exact", s, x, err2, x.Decimal())
		}
	})
}

// FuzzFixedText checks the round trips Fixed → Decimal → Fixed and Fixed →
// String → ParseFixed for every int64, and that String is the decimal's
// shortest form.
func FuzzFixedText(f *testing.F) {
	for _, c := range fixedCases {
		if c.err == nil {
			f.Add(int64(c.floor))
		}
	}
	f.Fuzz(func(t *testing.T, v int64) {
		x := Fixed(v)
		s := x.String()
		if want := x.Decimal().String(); s != want {
			t.Fatalf("Fixed(%d).String() = %q, the decimal says %q", v, s, want)
		}
		if b := x.AppendText([]byte("x=")); string(b) != "x="+s {
			t.Fatalf("AppendText = %q", b)
		}
		if y, err := FixedFromDecimal(x.Decimal()); y != x || err != nil {
			t.Fatalf("Decimal round trip of %d: %d, %v", v, y, err)
		}
		if y, err := ParseFixed(s); y != x || err != nil {
			t.Fatalf("String round trip of %d: %q -> %d, %v", v, s, y, err)
		}
		if got, want := x.Float(), x.Decimal().InexactFloat64(); math.Abs(got-want) > math.Abs(want)*1e-15 {
			t.Fatalf("Fixed(%d).Float() = %v, want %v", v, got, want)
		}
	})
}

// FuzzFixedArith checks Mul and Div in every mode against big-integer
// division.
func FuzzFixedArith(f *testing.F) {
	for _, c := range arithCases {
		for _, r := range modes {
			f.Add(int64(c.a), int64(c.b), c.div, uint8(r))
		}
	}
	f.Fuzz(func(t *testing.T, a, b int64, div bool, mode uint8) {
		r := Rounding(mode % 4)
		num, den := new(big.Int).Mul(big.NewInt(a), big.NewInt(b)), big.NewInt(FixedScale)
		op, name := Fixed.Mul, "×"
		if div {
			if b == 0 {
				return
			}
			num, den = new(big.Int).Mul(big.NewInt(a), den), big.NewInt(b)
			op, name = Fixed.Div, "/"
		}
		got, err := op(Fixed(a), Fixed(b), r)
		// The reference: num / den, rounded.
		neg := num.Sign()*den.Sign() < 0
		q, m := new(big.Int).QuoRem(num, den, new(big.Int))
		inexact := m.Sign() != 0
		if inexact && (r == RoundFloor && neg || r == RoundCeil && !neg) {
			q.Add(q, big.NewInt(int64(num.Sign()*den.Sign())))
		}
		switch {
		case inexact && r == RoundExact:
			if got != 0 || !errors.Is(err, ErrInexact) {
				t.Fatalf("%d %s %d (%s) = %d, %v; want ErrInexact", a, name, b, r, got, err)
			}
		case !q.IsInt64():
			if got != saturated(neg) || !errors.Is(err, ErrOverflow) {
				t.Fatalf("%d %s %d (%s) = %d, %v; want saturated, ErrOverflow", a, name, b, r, got, err)
			}
		case err != nil || int64(got) != q.Int64():
			t.Fatalf("%d %s %d (%s) = %d, %v; want %s", a, name, b, r, got, err, q)
		}
		if err != nil && !strings.Contains(err.Error(), Fixed(a).String()+" "+name+" "+Fixed(b).String()) {
			t.Fatalf("error %q does not name the operands", err)
		}
	})
}

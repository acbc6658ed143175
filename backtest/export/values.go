package export

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// ErrNotRepresentable is wrapped by the error for a value that its column
// cannot hold exactly: a price or size of 10^12 or more (DECIMAL(18,6)), an
// amount with more than 18 decimal places or of 10^20 or more
// (DECIMAL(38,18)), a time outside the years 1678 to 2261 (nanosecond
// timestamps). Nothing is ever rounded: the export fails instead.
var ErrNotRepresentable = errors.New("value does not fit its Parquet column")

// maxPrecision18 is the largest unscaled value of a DECIMAL(18, s).
const maxPrecision18 = 999_999_999_999_999_999

// maxPrecision38 bounds the unscaled value of a DECIMAL(38, s): 10^38.
var maxPrecision38 = new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)

// The range of nanosecond timestamps.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// row appends one row to a table, column by column in the schema's order.
// The first error is kept and the rest of the row is skipped; every error
// ends an export, and the caller aborts the table.
type row struct {
	t    *table
	vals parquet.Row
	err  error
}

// row starts a row in the next slot of the table's batch, reusing its
// values' storage.
func (t *table) row() row { return row{t: t, vals: t.batch[t.n][:0]} }

// next returns the index of the next column, which must be of type typ
// (a time may go to a nanosecond or a millisecond column), or false after
// an error.
func (r *row) next(typ colType) (int, bool) {
	if r.err != nil {
		return 0, false
	}
	i := len(r.vals)
	if i >= len(r.t.fields) {
		r.err = fmt.Errorf("a row of more than %d values for %d columns", i, len(r.t.fields))
		return 0, false
	}
	if want := r.t.fields[i].typ; want != typ && !(typ == timeType && want == msType) {
		r.fail(i, fmt.Errorf("a %s value for a %s column", typ, want))
		return 0, false
	}
	return i, true
}

// put appends v as the value of column i.
func (r *row) put(i int, v parquet.Value) {
	def := 0
	if r.t.fields[i].nullable {
		def = 1
	}
	r.vals = append(r.vals, v.Level(0, def, i))
}

func (r *row) fail(i int, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("column %s: %w", r.t.fields[i].name, err)
	}
}

// end finishes the row.
func (r *row) end() error {
	if r.err != nil {
		return fmt.Errorf("parquet %s: %w", r.t.path, r.err)
	}
	if n := len(r.t.fields); len(r.vals) != n {
		return fmt.Errorf("parquet %s: a row of %d values for %d columns", r.t.path, len(r.vals), n)
	}
	r.t.batch[r.t.n] = r.vals
	return r.t.endRow()
}

func (r *row) null() {
	if r.err != nil {
		return
	}
	i := len(r.vals)
	if i >= len(r.t.fields) {
		r.err = fmt.Errorf("a row of more than %d values for %d columns", i, len(r.t.fields))
		return
	}
	if !r.t.fields[i].nullable {
		r.fail(i, errors.New("null in a column that is never null"))
		return
	}
	r.vals = append(r.vals, parquet.NullValue().Level(0, 0, i))
}

func (r *row) str(s string) {
	if i, ok := r.next(stringType); ok {
		r.put(i, parquet.ByteArrayValue([]byte(s)))
	}
}

// optStr writes s, or null when it is empty.
func (r *row) optStr(s string) {
	if s == "" {
		r.null()
		return
	}
	r.str(s)
}

func (r *row) int(v int64) {
	if i, ok := r.next(int64Type); ok {
		r.put(i, parquet.Int64Value(v))
	}
}

func (r *row) int32(v int32) {
	if i, ok := r.next(int32Type); ok {
		r.put(i, parquet.Int32Value(v))
	}
}

func (r *row) bool(v bool) {
	if i, ok := r.next(boolType); ok {
		r.put(i, parquet.BooleanValue(v))
	}
}

// ratio writes a statistic, or null when it is NaN or infinite (as the
// JSON reports do).
func (r *row) ratio(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.null()
		return
	}
	if i, ok := r.next(doubleType); ok {
		r.put(i, parquet.DoubleValue(v))
	}
}

// time writes t in the unit of its column.
func (r *row) time(t time.Time) {
	i, ok := r.next(timeType)
	if !ok {
		return
	}
	if t.Before(minTime) || t.After(maxTime) {
		r.fail(i, fmt.Errorf("%w: time %s", ErrNotRepresentable, t.UTC().Format(time.RFC3339Nano)))
		return
	}
	v := t.UnixNano()
	if r.t.fields[i].typ == msType {
		v = t.UnixMilli()
	}
	r.put(i, parquet.Int64Value(v))
}

// optTime writes t, or null when it is zero.
func (r *row) optTime(t time.Time) {
	if t.IsZero() {
		r.null()
		return
	}
	r.time(t)
}

// price writes a price or size of a DECIMAL(18,6) column.
func (r *row) price(f exchange.Fixed) {
	i, ok := r.next(priceType)
	if !ok {
		return
	}
	if f > maxPrecision18 || f < -maxPrecision18 {
		r.fail(i, fmt.Errorf("%w: %s is not below 10^12", ErrNotRepresentable, f))
		return
	}
	r.put(i, parquet.Int64Value(int64(f)))
}

// optPrice writes f, or null when it is zero (an empty book side, no
// quote).
func (r *row) optPrice(f exchange.Fixed) {
	if f == 0 {
		r.null()
		return
	}
	r.price(f)
}

// dec writes a decimal of a DECIMAL(18,6) column: it must be exact in
// exchange.Fixed.
func (r *row) dec(d decimal.Decimal) {
	f, err := exchange.FixedFromDecimal(d)
	if err != nil {
		if i, ok := r.next(priceType); ok {
			r.fail(i, fmt.Errorf("%w: %w", ErrNotRepresentable, err))
		}
		return
	}
	r.price(f)
}

// optDec writes d, or null when it is zero.
func (r *row) optDec(d decimal.Decimal) {
	if d.IsZero() {
		r.null()
		return
	}
	r.dec(d)
}

// amount writes a decimal of a DECIMAL(38,18) column, exactly.
func (r *row) amount(d decimal.Decimal) {
	i, ok := r.next(amountType)
	if !ok {
		return
	}
	b, err := amountUnscaled(d)
	if err != nil {
		r.fail(i, err)
		return
	}
	r.put(i, parquet.FixedLenByteArrayValue(b))
}

// optAmount writes d when ok, else null.
func (r *row) optAmount(d decimal.Decimal, ok bool) {
	if !ok {
		r.null()
		return
	}
	r.amount(d)
}

// amountUnscaled returns d × 10^18 as Parquet stores a DECIMAL(38,18): a
// 16-byte big-endian two's complement integer. d must have at most 18
// decimal places and be below 10^20 in magnitude.
func amountUnscaled(d decimal.Decimal) ([]byte, error) {
	s := d.Shift(amountScale)
	if !s.IsInteger() {
		return nil, fmt.Errorf("%w: %s has more than %d decimal places", ErrNotRepresentable, d, amountScale)
	}
	bi := s.BigInt()
	if new(big.Int).Abs(bi).Cmp(maxPrecision38) >= 0 {
		return nil, fmt.Errorf("%w: %s is not below 10^20", ErrNotRepresentable, d)
	}
	return int128Bytes(bi), nil
}

// int128Bytes returns v, which fits in 127 bits and a sign, as a 16-byte
// big-endian two's complement integer.
func int128Bytes(v *big.Int) []byte {
	b := make([]byte, amountBytes)
	if v.Sign() >= 0 {
		return v.FillBytes(b)
	}
	// -v = ^(v-1): the two's complement of a negative v is the complement
	// of |v|-1.
	m := new(big.Int).Neg(v)
	m.Sub(m, big.NewInt(1))
	m.FillBytes(b)
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

package export

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// ErrNotRepresentable is wrapped by the error for a value that its column
// cannot hold exactly: a price or size of 10^12 or more (DECIMAL(18,6)), an
// amount with more than 18 decimal places or of 10^20 or more
// (DECIMAL(38,18)), a time outside the years 1678 to 2261 (nanosecond
// timestamps). Nothing is ever rounded: the export fails instead.
var ErrNotRepresentable = errors.New("value does not fit its Parquet column")

// The column types. Prices and sizes are DECIMAL(18,6): the int64 stored
// is the exchange.Fixed value (millionths), so they are exact. Amounts the
// accounting computes (cash, fees, PnL, the mid) can carry more decimal
// places than the exchange's 6 (price × size has 12, a fee in bps 16):
// they are DECIMAL(38,18). Times are UTC timestamps in nanoseconds, the
// exchange's own timestamp in milliseconds as the recording holds it.
var (
	priceType  arrow.DataType = &arrow.Decimal128Type{Precision: 18, Scale: exchange.FixedDecimals}
	amountType arrow.DataType = &arrow.Decimal128Type{Precision: 38, Scale: amountScale}
	timeType   arrow.DataType = &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	msType     arrow.DataType = &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
)

// amountScale is the number of decimal places of an amount column.
const amountScale = 18

// maxPrecision18 is the largest unscaled value of a DECIMAL(18, s).
const maxPrecision18 = 999_999_999_999_999_999

// maxPrecision38 bounds the unscaled value of a DECIMAL(38, s): 10^38.
var maxPrecision38 = new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)

// The range of nanosecond timestamps.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// required and nullable declare a column that is never null or may be.
func required(name string, t arrow.DataType) arrow.Field { return arrow.Field{Name: name, Type: t} }
func nullable(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

// row appends one row to a table, column by column in the schema's order.
// The first error is kept and the rest of the row is skipped; the table is
// then unusable (its columns have different lengths) and is aborted by the
// caller, as every error ends an export.
type row struct {
	t   *table
	i   int
	err error
}

func (t *table) row() row { return row{t: t} }

// next returns the builder of the next column, or nil after an error.
func (r *row) next() array.Builder {
	if r.err != nil {
		return nil
	}
	b := r.t.col(r.i)
	r.i++
	return b
}

func (r *row) fail(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("column %s: %w", r.t.rb.Schema().Field(r.i-1).Name, err)
	}
}

// end finishes the row.
func (r *row) end() error {
	if r.err != nil {
		return fmt.Errorf("parquet %s: %w", r.t.path, r.err)
	}
	if n := r.t.rb.Schema().NumFields(); r.i != n {
		return fmt.Errorf("parquet %s: a row of %d values for %d columns", r.t.path, r.i, n)
	}
	return r.t.endRow()
}

func (r *row) null() {
	if b := r.next(); b != nil {
		b.AppendNull()
	}
}

func (r *row) str(s string) {
	if b := r.next(); b != nil {
		b.(*array.StringBuilder).Append(s)
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
	if b := r.next(); b != nil {
		b.(*array.Int64Builder).Append(v)
	}
}

func (r *row) int32(v int32) {
	if b := r.next(); b != nil {
		b.(*array.Int32Builder).Append(v)
	}
}

func (r *row) bool(v bool) {
	if b := r.next(); b != nil {
		b.(*array.BooleanBuilder).Append(v)
	}
}

// ratio writes a statistic, or null when it is NaN or infinite (as the
// JSON reports do).
func (r *row) ratio(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.null()
		return
	}
	if b := r.next(); b != nil {
		b.(*array.Float64Builder).Append(v)
	}
}

// time writes t in the unit of its column.
func (r *row) time(t time.Time) {
	b := r.next()
	if b == nil {
		return
	}
	if t.Before(minTime) || t.After(maxTime) {
		r.fail(fmt.Errorf("%w: time %s", ErrNotRepresentable, t.UTC().Format(time.RFC3339Nano)))
		return
	}
	unit := b.Type().(*arrow.TimestampType).Unit
	v := t.UnixNano()
	if unit == arrow.Millisecond {
		v = t.UnixMilli()
	}
	b.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
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
	b := r.next()
	if b == nil {
		return
	}
	if f > maxPrecision18 || f < -maxPrecision18 {
		r.fail(fmt.Errorf("%w: %s is not below 10^12", ErrNotRepresentable, f))
		return
	}
	b.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(f)))
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
		if r.next() != nil {
			r.fail(fmt.Errorf("%w: %w", ErrNotRepresentable, err))
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
	b := r.next()
	if b == nil {
		return
	}
	n, err := amountUnscaled(d)
	if err != nil {
		r.fail(err)
		return
	}
	b.(*array.Decimal128Builder).Append(n)
}

// optAmount writes d when ok, else null.
func (r *row) optAmount(d decimal.Decimal, ok bool) {
	if !ok {
		r.null()
		return
	}
	r.amount(d)
}

// amountUnscaled returns d × 10^18 as a 128-bit integer: d must have at
// most 18 decimal places and be below 10^20 in magnitude.
func amountUnscaled(d decimal.Decimal) (decimal128.Num, error) {
	s := d.Shift(amountScale)
	if !s.IsInteger() {
		return decimal128.Num{}, fmt.Errorf("%w: %s has more than %d decimal places", ErrNotRepresentable, d, amountScale)
	}
	bi := s.BigInt()
	if new(big.Int).Abs(bi).Cmp(maxPrecision38) >= 0 {
		return decimal128.Num{}, fmt.Errorf("%w: %s is not below 10^20", ErrNotRepresentable, d)
	}
	return decimal128.FromBigInt(bi), nil
}

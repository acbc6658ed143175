package export

import (
	"reflect"

	"github.com/parquet-go/parquet-go"

	"github.com/mmbot/mmbot/exchange"
)

// colType is the type of a column: its Parquet physical and logical type.
// Prices and sizes are DECIMAL(18,6): the int64 stored is the
// exchange.Fixed value (millionths), so they are exact. Amounts the
// accounting computes (cash, fees, PnL, the mid) can carry more decimal
// places than the exchange's 6 (price × size has 12, a fee in bps 16):
// they are DECIMAL(38,18). Times are UTC timestamps in nanoseconds, the
// exchange's own timestamp in milliseconds as the recording holds it.
type colType uint8

const (
	stringType colType = iota // BYTE_ARRAY STRING, dictionary-encoded
	int64Type                 // INT64
	int32Type                 // INT32
	boolType                  // BOOLEAN
	doubleType                // DOUBLE
	timeType                  // INT64 TIMESTAMP(NANOS,UTC)
	msType                    // INT64 TIMESTAMP(MILLIS,UTC)
	priceType                 // INT64 DECIMAL(18,6)
	amountType                // FIXED_LEN_BYTE_ARRAY(16) DECIMAL(38,18)
)

// amountScale is the number of decimal places of an amount column.
const amountScale = 18

// amountBytes is the width of an amount: a 128-bit two's complement
// integer, big-endian, as Parquet stores a DECIMAL(38,s).
const amountBytes = 16

func (t colType) String() string {
	return [...]string{"STRING", "INT64", "INT32", "BOOLEAN", "DOUBLE", "TIMESTAMP(NANOS,UTC)", "TIMESTAMP(MILLIS,UTC)", "DECIMAL(18,6)", "DECIMAL(38,18)"}[t]
}

// node is the Parquet schema node of a required column of type t.
func (t colType) node() parquet.Node {
	switch t {
	case stringType:
		return parquet.Encoded(parquet.String(), &parquet.RLEDictionary)
	case int64Type:
		return parquet.Int(64)
	case int32Type:
		return parquet.Int(32)
	case boolType:
		return parquet.Leaf(parquet.BooleanType)
	case doubleType:
		return parquet.Leaf(parquet.DoubleType)
	case timeType:
		return parquet.TimestampAdjusted(parquet.Nanosecond, true)
	case msType:
		return parquet.TimestampAdjusted(parquet.Millisecond, true)
	case priceType:
		return parquet.Decimal(exchange.FixedDecimals, 18, parquet.Int64Type)
	default: // amountType
		return parquet.Decimal(amountScale, 38, parquet.FixedLenByteArrayType(amountBytes))
	}
}

// field is one column of a file.
type field struct {
	name     string
	typ      colType
	nullable bool
}

// required and nullable declare a column that is never null or may be.
func required(name string, t colType) field { return field{name: name, typ: t} }
func nullable(name string, t colType) field { return field{name: name, typ: t, nullable: true} }

// newSchema returns the Parquet schema of a file with the given columns, in
// their order. (parquet-go's own Group orders columns by name; the files
// keep the order of docs/data-format.md, so the root is an ordered group.)
func newSchema(fields []field) *parquet.Schema {
	g := orderedGroup{Group: parquet.Group{}}
	for _, f := range fields {
		n := f.typ.node()
		if f.nullable {
			n = parquet.Optional(n)
		}
		g.Group[f.name] = n
		g.fields = append(g.fields, namedNode{Node: n, name: f.name})
	}
	return parquet.NewSchema("schema", g)
}

// orderedGroup is a group node whose fields keep the order they were given.
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

func (g orderedGroup) Fields() []parquet.Field { return g.fields }

// namedNode is a field of an orderedGroup. Rows are written as
// parquet.Row values, never from Go structs, so Value is not used.
type namedNode struct {
	parquet.Node
	name string
}

func (n namedNode) Name() string                      { return n.name }
func (n namedNode) Value(reflect.Value) reflect.Value { return reflect.Value{} }

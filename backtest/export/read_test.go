package export_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/shopspring/decimal"
)

// column is one column of a Parquet file as docs/data-format.md describes
// it: its name, its type ("INT64 DECIMAL(18,6)", "BYTE_ARRAY STRING") and
// whether it may be null.
type column struct {
	Name     string
	Type     string
	Nullable bool
}

func (c column) String() string { return fmt.Sprintf("%s %s null=%v", c.Name, c.Type, c.Nullable) }

// pqFile is a Parquet file read back with arrow-go's reader: the schema
// of its columns, its rows as text (see cell), its row groups and its
// key-value metadata.
type pqFile struct {
	cols   []column
	names  []string
	rows   [][]string
	groups int
	kv     map[string]string
}

// readParquet reads the whole file at path.
func readParquet(t *testing.T, path string) pqFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer pf.Close()
	out := pqFile{groups: pf.NumRowGroups(), kv: map[string]string{}}
	md := pf.MetaData()
	for _, col := range md.Schema.Columns() {
		out.cols = append(out.cols, column{Name: col.Name(), Type: docType(col), Nullable: col.MaxDefinitionLevel() > 0})
	}
	kv := md.KeyValueMetadata()
	for i, k := range kv.Keys() {
		out.kv[k] = kv.Values()[i]
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 20}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer tbl.Release()
	n := int(tbl.NumRows())
	out.rows = make([][]string, n)
	for i := range out.rows {
		out.rows[i] = make([]string, tbl.NumCols())
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		out.names = append(out.names, tbl.Schema().Field(c).Name)
		row := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				out.rows[row][c] = cell(t, chunk, i)
				row++
			}
		}
	}
	return out
}

// cell formats one value: decimals in their shortest form ("0.5"), times
// in RFC 3339 UTC with nanoseconds, "null" for null.
func cell(t *testing.T, a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch a := a.(type) {
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return decimal.NewFromBigInt(a.Value(i).BigInt(), -scale).String()
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC().Format(time.RFC3339Nano)
	case *array.String:
		return a.Value(i)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	}
	t.Fatalf("unexpected column type %s", a.DataType())
	return ""
}

// docType writes a column's Parquet type as the docs do: the physical type
// and, when there is one that says more than the physical type, the
// logical type.
func docType(c *schema.Column) string {
	phys := c.PhysicalType().String()
	if c.PhysicalType() == parquet.Types.FixedLenByteArray {
		phys = fmt.Sprintf("%s(%d)", phys, c.TypeLength())
	}
	switch lt := c.LogicalType().(type) {
	case schema.DecimalLogicalType:
		return fmt.Sprintf("%s DECIMAL(%d,%d)", phys, lt.Precision(), lt.Scale())
	case schema.TimestampLogicalType:
		unit := map[schema.TimeUnitType]string{schema.TimeUnitMillis: "MILLIS", schema.TimeUnitMicros: "MICROS", schema.TimeUnitNanos: "NANOS"}[lt.TimeUnit()]
		if lt.IsAdjustedToUTC() {
			unit += ",UTC"
		}
		return fmt.Sprintf("%s TIMESTAMP(%s)", phys, unit)
	case schema.StringLogicalType:
		return phys + " STRING"
	}
	return phys
}

// docSchemas reads the column tables of docs/data-format.md's "Parquet
// export" section: for each "### `name.parquet`" heading, the rows of the
// table under it (| `column` | type | null | meaning | unit |).
func docSchemas(t *testing.T) map[string][]column {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "data-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n## Parquet export")
	if !ok {
		t.Fatal("docs/data-format.md has no \"## Parquet export\" section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	heading := regexp.MustCompile("^### `([a-z]+\\.parquet)`")
	rowRe := regexp.MustCompile("^\\| `([a-z0-9_]+|<key>)` \\| ([A-Z0-9_(), ]+) \\| (yes|no) \\|")
	out := map[string][]column{}
	cur := ""
	for _, line := range strings.Split(section, "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if m := rowRe.FindStringSubmatch(line); m != nil && cur != "" {
			out[cur] = append(out[cur], column{Name: m[1], Type: strings.TrimSpace(m[2]), Nullable: m[3] == "yes"})
		}
	}
	return out
}

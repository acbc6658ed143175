package export_test

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
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

// pqFile is a Parquet file read back: the schema of its columns as its
// footer states it, its rows as text (see cell), its row groups and its
// key-value metadata.
type pqFile struct {
	cols   []column
	names  []string
	rows   [][]string
	groups int
	kv     map[string]string
}

// readParquet reads the whole file at path with parquet-go's reader; the
// column types come from the footer's schema elements as written, not from
// the reader's interpretation of them.
func readParquet(t *testing.T, path string) pqFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	md := pf.Metadata()
	out := pqFile{groups: len(md.RowGroups), kv: map[string]string{}}
	elems := md.Schema[1:] // [0] is the root; the files are flat
	for _, e := range elems {
		if e.NumChildren.V > 0 {
			t.Fatalf("%s: column %s is a group", path, e.Name)
		}
		out.names = append(out.names, e.Name)
		out.cols = append(out.cols, column{Name: e.Name, Type: docType(e), Nullable: e.RepetitionType.V == format.Optional})
	}
	for _, kv := range md.KeyValueMetadata {
		out.kv[kv.Key] = kv.Value
	}
	buf := make([]parquet.Row, 128)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				if len(r) != len(elems) {
					t.Fatalf("%s: a row of %d values for %d columns", path, len(r), len(elems))
				}
				cells := make([]string, len(elems))
				for _, v := range r {
					cells[v.Column()] = cell(t, elems[v.Column()], v)
				}
				out.rows = append(out.rows, cells)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if int64(len(out.rows)) != pf.NumRows() {
		t.Fatalf("%s: read %d rows, the footer says %d", path, len(out.rows), pf.NumRows())
	}
	return out
}

// cell formats one value of the column e: decimals in their shortest form
// ("0.5"), times in RFC 3339 UTC with nanoseconds, "null" for null.
func cell(t *testing.T, e format.SchemaElement, v parquet.Value) string {
	if v.IsNull() {
		return "null"
	}
	lt := e.LogicalType.Value
	switch phys := e.Type.V; {
	case e.ConvertedType.Valid && e.ConvertedType.V == deprecated.Decimal:
		var unscaled *big.Int
		switch phys {
		case format.Int64:
			unscaled = big.NewInt(v.Int64())
		case format.FixedLenByteArray:
			b := v.ByteArray()
			unscaled = new(big.Int).SetBytes(b)
			if len(b) > 0 && b[0]&0x80 != 0 { // negative: two's complement
				unscaled.Sub(unscaled, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
		default:
			t.Fatalf("column %s: a decimal stored as %s", e.Name, phys)
		}
		return decimal.NewFromBigInt(unscaled, -e.Scale.V).String()
	case phys == format.Int64:
		if ts, ok := lt.(*format.TimestampType); ok {
			unit := map[string]time.Duration{"MILLIS": time.Millisecond, "MICROS": time.Microsecond, "NANOS": time.Nanosecond}[ts.Unit.Value.String()]
			if unit == 0 {
				t.Fatalf("column %s: timestamp unit %s", e.Name, ts.Unit.Value)
			}
			return time.Unix(0, 0).Add(time.Duration(v.Int64()) * unit).UTC().Format(time.RFC3339Nano)
		}
		return strconv.FormatInt(v.Int64(), 10)
	case phys == format.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case phys == format.ByteArray:
		return string(v.ByteArray())
	case phys == format.Boolean:
		return strconv.FormatBool(v.Boolean())
	case phys == format.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	}
	t.Fatalf("unexpected column type %s", e.Type.V)
	return ""
}

// docType writes a column's Parquet type as the docs do: the physical type
// and, when there is one that says more than the physical type, the
// logical type. A decimal must say so twice, in its logical type and in
// its converted type (which older readers use), with the same precision
// and scale.
func docType(e format.SchemaElement) string {
	phys := e.Type.V.String()
	if e.Type.V == format.FixedLenByteArray {
		phys = fmt.Sprintf("%s(%d)", phys, e.TypeLength.V)
	}
	switch lt := e.LogicalType.Value.(type) {
	case *format.DecimalType:
		if !e.ConvertedType.Valid || e.ConvertedType.V != deprecated.Decimal || e.Precision.V != lt.Precision || e.Scale.V != lt.Scale {
			return fmt.Sprintf("%s DECIMAL(%d,%d) converted as %v(%d,%d)", phys, lt.Precision, lt.Scale, e.ConvertedType.V, e.Precision.V, e.Scale.V)
		}
		return fmt.Sprintf("%s DECIMAL(%d,%d)", phys, lt.Precision, lt.Scale)
	case *format.TimestampType:
		unit := lt.Unit.Value.String()
		if lt.IsAdjustedToUTC {
			unit += ",UTC"
		}
		return fmt.Sprintf("%s TIMESTAMP(%s)", phys, unit)
	case *format.StringType:
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

package export

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/mmbot/mmbot/internal/atomicfile"
)

// DefaultRowGroupRows is the number of rows of a row group when
// Options.RowGroupRows is zero: a few MiB of buffered columns for the
// widest file (books), and row groups large enough for fast scans.
const DefaultRowGroupRows = 64 << 10

// Options tunes the writers. The zero value is the default.
type Options struct {
	// RowGroupRows is the number of rows buffered before they are written
	// out as one row group (DefaultRowGroupRows when zero). It bounds the
	// memory a writer holds, whatever the length of its input.
	RowGroupRows int
}

func (o Options) rowGroupRows() int {
	if o.RowGroupRows > 0 {
		return o.RowGroupRows
	}
	return DefaultRowGroupRows
}

// table streams rows into one Parquet file: the rows are appended to the
// builders of its columns, and every RowGroupRows rows they are written out
// as one row group and the builders start again. The file is written to a
// temporary file and placed at its path by commit (internal/atomicfile).
type table struct {
	path   string
	af     *atomicfile.File
	fw     *pqarrow.FileWriter
	rb     *array.RecordBuilder
	group  int   // rows per row group
	rows   int   // rows buffered in rb
	total  int64 // rows written or buffered
	groups int   // row groups written
	done   bool  // committed or aborted
}

// writerProps are the Parquet settings of every file: format version 2.6
// (nanosecond timestamps), decimals of precision at most 18 stored as
// INT64, zstd compression, dictionary encoding (the default) for the
// repetitive token and market ids.
func writerProps(group int) *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithVersion(parquet.V2_6),
		parquet.WithStoreDecimalAsInteger(true),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(group)),
		parquet.WithCreatedBy("mmbot export"),
	)
}

// newTable starts the file at path with the given columns and key-value
// metadata (written into the file's footer).
func newTable(path string, fields []arrow.Field, meta [][2]string, opt Options) (*table, error) {
	schema := arrow.NewSchema(fields, nil)
	af, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	group := opt.rowGroupRows()
	fw, err := pqarrow.NewFileWriter(schema, af, writerProps(group), pqarrow.NewArrowWriterProperties())
	if err != nil {
		_ = af.Abort()
		return nil, fmt.Errorf("parquet %s: %w", path, err)
	}
	for _, kv := range meta {
		if err := fw.AppendKeyValueMetadata(kv[0], kv[1]); err != nil {
			_ = af.Abort()
			return nil, fmt.Errorf("parquet %s: metadata: %w", path, err)
		}
	}
	return &table{path: path, af: af, fw: fw, rb: array.NewRecordBuilder(memory.DefaultAllocator, schema), group: group}, nil
}

// col returns the builder of column i.
func (t *table) col(i int) array.Builder { return t.rb.Field(i) }

// endRow counts one appended row (every column must have been appended
// to) and writes a row group when the buffer is full.
func (t *table) endRow() error {
	t.rows++
	t.total++
	if t.rows >= t.group {
		return t.flush()
	}
	return nil
}

// flush writes the buffered rows as one row group.
func (t *table) flush() error {
	if t.rows == 0 {
		return nil
	}
	rec := t.rb.NewRecordBatch()
	defer rec.Release()
	t.rows = 0
	if err := t.fw.Write(rec); err != nil {
		return fmt.Errorf("parquet %s: write row group: %w", t.path, err)
	}
	t.groups++
	return nil
}

// commit writes the last row group and the footer, and places the file at
// its path. On failure nothing is left at the path.
func (t *table) commit() error {
	if t.done {
		return atomicfile.ErrFinished
	}
	t.done = true
	err := t.flush()
	if cerr := t.fw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("parquet %s: close: %w", t.path, cerr)
	}
	t.rb.Release()
	if err != nil {
		return errors.Join(err, t.af.Abort())
	}
	return t.af.Commit()
}

// abort drops the file: nothing is left at its path.
func (t *table) abort() {
	if t.done {
		return
	}
	t.done = true
	_ = t.fw.Close()
	t.rb.Release()
	_ = t.af.Abort()
}

// NumRows returns the number of rows of the Parquet file at path, from its
// footer.
func NumRows(path string) (int64, error) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return 0, fmt.Errorf("parquet %s: %w", path, err)
	}
	defer r.Close()
	return r.NumRows(), nil
}

package export

import (
	"errors"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

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

// batchRows is the number of rows handed to the Parquet writer at once.
const batchRows = 256

// table streams rows into one Parquet file: rows are collected in a small
// batch and handed to parquet-go's writer, which buffers the columns of
// the current row group; every RowGroupRows rows the row group is written
// out. The file is written to a temporary file and placed at its path by
// commit (internal/atomicfile).
type table struct {
	path   string
	fields []field
	af     *atomicfile.File
	// w writes parquet.Row values only. parquet-go deprecates Writer for
	// GenericWriter[T], made to write Go values: GenericWriter[any] links
	// parquet-go's reflection paths, 1.1 MB more in the mmbot binary.
	//lint:ignore SA1019 see above
	w      *parquet.Writer
	batch  []parquet.Row // rows not yet handed to w: batch[:n]
	n      int
	group  int   // rows per row group
	rows   int   // rows of the current row group
	total  int64 // rows written or buffered
	groups int   // row groups written
	done   bool  // committed or aborted
}

// writerOptions are the Parquet settings of every file: zstd compression,
// dictionary encoding for the strings (the repetitive token and market
// ids, see colType.node), the key-value metadata in the footer.
func writerOptions(meta [][2]string) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.DefaultLevel}),
		&parquet.WriterConfig{CreatedBy: "mmbot export"},
		parquet.DataPageVersion(1),
	}
	for _, kv := range meta {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	return opts
}

// newTable starts the file at path with the given columns and key-value
// metadata (written into the file's footer).
func newTable(path string, fields []field, meta [][2]string, opt Options) (*table, error) {
	af, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	t := &table{path: path, fields: fields, af: af, group: opt.rowGroupRows(), batch: make([]parquet.Row, batchRows)}
	t.w = parquet.NewWriter(af, append(writerOptions(meta), newSchema(fields))...)
	return t, nil
}

// endRow counts the row just placed in the batch and hands the batch to
// the writer when it is full, and the row group to the file when that is.
func (t *table) endRow() error {
	t.n++
	t.rows++
	t.total++
	if t.rows >= t.group {
		return t.flush()
	}
	if t.n == len(t.batch) {
		return t.writeBatch()
	}
	return nil
}

// writeBatch hands the batched rows to the writer.
func (t *table) writeBatch() error {
	if t.n == 0 {
		return nil
	}
	n := t.n
	t.n = 0
	if _, err := t.w.WriteRows(t.batch[:n]); err != nil {
		return fmt.Errorf("parquet %s: write rows: %w", t.path, err)
	}
	return nil
}

// flush writes the buffered rows as one row group.
func (t *table) flush() error {
	if t.rows == 0 {
		return nil
	}
	if err := t.writeBatch(); err != nil {
		return err
	}
	t.rows = 0
	if err := t.w.Flush(); err != nil {
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
	if err == nil {
		if cerr := t.w.Close(); cerr != nil {
			err = fmt.Errorf("parquet %s: close: %w", t.path, cerr)
		}
	}
	t.batch = nil
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
	t.batch = nil
	_ = t.af.Abort()
}

// NumRows returns the number of rows of the Parquet file at path, from its
// footer.
func NumRows(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("parquet %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("parquet %s: %w", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, fmt.Errorf("parquet %s: %w", path, err)
	}
	return pf.NumRows(), nil
}

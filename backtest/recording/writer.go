package recording

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mmbot/mmbot/internal/atomicfile"
)

// ErrOutOfOrder is returned when an event's Time is before the previous one's.
var ErrOutOfOrder = errors.New("event out of time order")

// ErrClosed is returned by a Writer after Close or Abort.
var ErrClosed = errors.New("writer closed")

// Writer writes a recording, in version 2 (binary blocks) or version 1
// (gzip JSON Lines) as WithFormat or the file's name says. Nothing is
// visible at the destination path until Close commits it (temporary file,
// fsync, rename); Abort, an error, or a crashed process leaves no file at
// the destination.
type Writer struct {
	af     *atomicfile.File
	cw     *countingWriter
	bw     *bufio.Writer
	gz     *gzip.Writer // version 1
	bin    *binWriter   // version 2
	buf    []byte
	last   time.Time
	n      int
	header Header
	closed bool
	data   atomic.Int64 // uncompressed bytes written (header and events)
}

// WriterOption configures NewWriter.
type WriterOption func(*writerConfig)

type writerConfig struct {
	source  string
	created time.Time
	level   int
	format  FileFormat
	target  int // version 2 block size; 0: blockTarget
}

// WithSource sets the header's source field (what produced the recording).
func WithSource(s string) WriterOption { return func(c *writerConfig) { c.source = s } }

// WithCreated sets the header's created time (default: now), for
// reproducible files.
func WithCreated(t time.Time) WriterOption { return func(c *writerConfig) { c.created = t } }

// WithCompressionLevel sets the compression level on gzip's scale
// (gzip.BestSpeed … gzip.BestCompression; default gzip.DefaultCompression).
// Version 2 maps it to zstd's: BestSpeed to the fastest, 2–6 and the
// default to the default, 7 and 8 to better compression, 9 to the best.
func WithCompressionLevel(level int) WriterOption { return func(c *writerConfig) { c.level = level } }

// WithFormat sets the version to write. Without it, or with 0, the file's
// name decides (FormatForPath: version 1 for .jsonl.gz, version 2
// otherwise); asking for one version under the other's extension is an
// error.
func WithFormat(f FileFormat) WriterOption { return func(c *writerConfig) { c.format = f } }

// NewWriter starts a recording that Close will commit to path. The header is
// written at once.
func NewWriter(path string, opts ...WriterOption) (*Writer, error) {
	cfg := writerConfig{level: gzip.DefaultCompression}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.created.IsZero() {
		cfg.created = time.Now()
	}
	format, err := ResolveFormat(path, cfg.format)
	if err != nil {
		return nil, fmt.Errorf("recording %w", err)
	}
	if cfg.level < gzip.HuffmanOnly || cfg.level > gzip.BestCompression {
		return nil, fmt.Errorf("recording %s: compression level %d", path, cfg.level)
	}
	af, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	cw := &countingWriter{w: af}
	bw := bufio.NewWriterSize(cw, 64<<10)
	w := &Writer{af: af, cw: cw, bw: bw,
		header: Header{Format: Format, Version: int(format), Created: cfg.created.UTC(), Source: cfg.source}}
	if format == FormatV2 {
		if w.bin, err = newBinWriter(bw, w.header, cfg.level, cfg.target); err != nil {
			_ = af.Abort()
			return nil, fmt.Errorf("recording %s: write header: %w", path, err)
		}
		w.data.Store(w.bin.off)
		return w, nil
	}
	if w.gz, err = gzip.NewWriterLevel(bw, cfg.level); err != nil {
		_ = af.Abort()
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	gz := w.gz
	hb, err := json.Marshal(w.header)
	if err == nil {
		_, err = gz.Write(append(hb, '\n'))
		w.data.Add(int64(len(hb) + 1))
	}
	if err != nil {
		_ = w.Abort()
		return nil, fmt.Errorf("recording %s: write header: %w", path, err)
	}
	return w, nil
}

// Header returns the header the Writer wrote.
func (w *Writer) Header() Header { return w.header }

// Count returns the number of events written.
func (w *Writer) Count() int { return w.n }

// Bytes returns the number of compressed bytes that have reached the file so
// far. It lags the events written by what the compressor and the write
// buffer hold (up to some tens of KiB, so it stays 0 for a while) until
// Close; after Close it is the file's size. Unlike the Writer's other
// methods it may be called from another goroutine (a progress display).
func (w *Writer) Bytes() int64 { return w.cw.n.Load() }

// DataBytes returns the number of uncompressed bytes written so far (the
// header and the events: JSON lines in version 1, their binary encoding in
// version 2): it grows with every Write, so it is what a progress display
// shows while Bytes lags. It may be called from another goroutine.
func (w *Writer) DataBytes() int64 { return w.data.Load() }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// Write validates e and appends it. Events must come in non-decreasing Time
// order. A write error aborts the recording.
func (w *Writer) Write(e Event) error {
	if w.closed {
		return ErrClosed
	}
	if err := e.Validate(); err != nil {
		return err
	}
	t := e.Time()
	if t.Before(w.last) {
		return fmt.Errorf("%w: %s %s before %s", ErrOutOfOrder, e.Kind, t.Format(time.RFC3339Nano), w.last.Format(time.RFC3339Nano))
	}
	if w.bin != nil {
		n, err := w.bin.add(e)
		if err != nil {
			if errors.Is(err, ErrInvalidEvent) {
				return err // nothing written: the recording goes on
			}
			_ = w.Abort()
			return fmt.Errorf("write event: %w", err)
		}
		w.data.Add(n)
	} else {
		w.buf = AppendLine(w.buf[:0], e)
		if _, err := w.gz.Write(w.buf); err != nil {
			_ = w.Abort()
			return fmt.Errorf("write event: %w", err)
		}
		w.data.Add(int64(len(w.buf)))
	}
	w.last = t
	w.n++
	return nil
}

// Close finishes the compressed stream (version 2: the last block, the
// index and the footer) and commits the recording atomically. After an
// error nothing is left at the destination.
func (w *Writer) Close() error {
	if w.closed {
		return ErrClosed
	}
	var err error
	if w.bin != nil {
		err = w.bin.finish()
		w.bin.close()
	} else {
		err = w.gz.Close()
	}
	if err == nil {
		err = w.bw.Flush()
	}
	if err != nil {
		_ = w.Abort()
		return fmt.Errorf("close recording: %w", err)
	}
	w.closed = true
	return w.af.Commit()
}

// Abort discards the recording: the temporary file is removed and nothing
// appears at the destination. Abort after Close or Abort does nothing.
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.bin != nil {
		w.bin.close()
	}
	return w.af.Abort()
}

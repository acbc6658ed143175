package recording

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
)

// ErrTruncated means the recording ends inside a line or inside the gzip
// stream: the file was cut short (a crashed writer's temporary file, a
// partial copy).
var ErrTruncated = errors.New("recording truncated")

// ErrLineTooLong is returned for a line longer than MaxLineBytes.
var ErrLineTooLong = errors.New("line too long")

// MaxLineBytes bounds the length of one line, so that a corrupt file cannot
// make the Reader allocate without limit.
const MaxLineBytes = 64 << 20

// LineError locates a failure in a recording by its 1-based line number.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Reader streams the events of a recording of either version: version 2
// (binary blocks, one block in memory at a time) or version 1 (gzip JSON
// Lines, one line in memory at a time; plain JSON Lines are read too). The
// version is detected from the first bytes.
type Reader struct {
	br     *bufio.Reader
	gz     *gzip.Reader
	bin    *binReader // version 2; nil for version 1
	file   *os.File
	header Header
	line   int
	buf    []byte
	err    error
	cache  decimalCache
	skip   bool
}

// Open opens the recording at path and reads its header.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	r, err := NewReader(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	r.file = f
	return r, nil
}

// NewReader reads a recording from src and checks its header: a file that is
// not a recording fails with ErrNotRecording, one of another version with a
// *VersionError.
func NewReader(src io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	r := &Reader{}
	if magic, _ := br.Peek(len(binMagic)); string(magic) == string(binMagic[:]) {
		bin, h, err := newBinReader(br, &r.cache)
		if err != nil {
			return nil, err
		}
		r.bin, r.header, r.line = bin, h, 1
		return r, nil
	}
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		r.gz = gz
		r.br = bufio.NewReaderSize(gz, 64<<10)
	} else {
		r.br = br
	}
	line, err := r.readLine()
	if err == io.EOF {
		return nil, &LineError{Line: 1, Err: ErrNotRecording}
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(line, &r.header); err != nil {
		return nil, &LineError{Line: 1, Err: fmt.Errorf("%w: %v", ErrNotRecording, err)}
	}
	if err := r.header.check(1); err != nil {
		return nil, &LineError{Line: 1, Err: err}
	}
	return r, nil
}

// Header returns the recording's header.
func (r *Reader) Header() Header { return r.header }

// SkipLevels makes the books read after it come without their levels
// (empty Bids and Asks), for a pass over a recording that needs only the
// tokens, markets, times, terms and metadata (the backtest's market scan).
// Version 2 then reads past the levels without decoding them, several
// times faster and without checking them (the block checksums still
// hold), and may return the same *Book each time, overwritten by the next
// call to Next: a pass that skips levels must not keep the books (their
// strings and decimals it may keep), nor read them ahead into a queue (as
// a prefetching goroutine would). Version 1 decodes the levels all the
// same and drops them.
func (r *Reader) SkipLevels() {
	r.skip = true
	if r.bin != nil {
		r.bin.dec.skip = true
	}
}

// FixedLevelsOnly makes the books read after it carry their levels in
// Fixed units only (Book.FixedLevels), with Bids and Asks nil, in memory
// that version 2 reuses: a *Book and its levels are valid only until the
// next call to Next, which may overwrite them. It is for the replay, which
// copies the little it keeps (the fill model and the metrics read the
// Fixed levels at once, the strategy's view keeps a copy and converts the
// books it reads with a LevelConverter); a reader that keeps books or
// reads them ahead into a queue copies them into a BookStore. Version 2
// then decodes a book without allocating, a changed side edited in place;
// version 1 is unaffected (its books carry both forms, and are not
// reused).
func (r *Reader) FixedLevelsOnly() {
	if r.bin != nil {
		r.bin.dec.fixedOnly = true
	}
}

// Line returns the number of the last line read of a version 1 recording;
// for version 2, the number of events read, plus one (the header), so
// that it counts the same as for version 1.
func (r *Reader) Line() int { return r.line }

// Next returns the next event, or io.EOF after the last one. Errors are
// *LineError values naming the line (version 1) or *BlockError values
// naming the block, its offset and the event (version 2); after an error
// Next keeps returning it.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	if r.bin != nil {
		e, err := r.bin.next()
		if err != nil {
			r.err = err
			return Event{}, err
		}
		r.line++
		return e, nil
	}
	for {
		line, err := r.readLine()
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := parseLine(line, &r.cache)
		if err != nil {
			r.err = &LineError{Line: r.line, Err: err}
			return Event{}, r.err
		}
		if r.skip && e.Kind == KindBook {
			b := *e.Book
			b.Bids, b.Asks, b.fx = NonNil(nil), NonNil(nil), nil
			e.Book = &b
		}
		return e, nil
	}
}

// All returns an iterator over the remaining events. It stops after the last
// event, or after yielding the first error.
func (r *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			e, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// Close releases the file opened by Open.
func (r *Reader) Close() error {
	var err error
	if r.gz != nil {
		err = r.gz.Close()
	}
	if r.bin != nil {
		r.bin.close()
	}
	if r.file != nil {
		if cerr := r.file.Close(); err == nil {
			err = cerr
		}
		r.file = nil
	}
	return err
}

// readLine returns the next line without its newline. The slice is valid
// until the next call. A final line without a newline, or a gzip stream cut
// short, is ErrTruncated.
func (r *Reader) readLine() ([]byte, error) {
	r.line++
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			if len(r.buf) == 0 {
				return chunk[:len(chunk)-1], nil
			}
			r.buf = append(r.buf, chunk[:len(chunk)-1]...)
			return r.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(r.buf)+len(chunk) > MaxLineBytes {
				return nil, &LineError{Line: r.line, Err: ErrLineTooLong}
			}
			r.buf = append(r.buf, chunk...)
		case err == io.EOF:
			if len(r.buf)+len(chunk) == 0 {
				r.line--
				return nil, io.EOF
			}
			return nil, &LineError{Line: r.line, Err: fmt.Errorf("%w: last line has no newline", ErrTruncated)}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &LineError{Line: r.line, Err: fmt.Errorf("%w: compressed stream ends early", ErrTruncated)}
		default:
			return nil, &LineError{Line: r.line, Err: err}
		}
	}
}

// ReadAll reads the whole recording at path into memory, for tests and small
// files; a replay streams with Open instead. On a read error it returns the
// events before it.
func ReadAll(path string) (Header, []Event, error) {
	r, err := Open(path)
	if err != nil {
		return Header{}, nil, err
	}
	defer r.Close()
	var out []Event
	for e, err := range r.All() {
		if err != nil {
			return r.Header(), out, err
		}
		out = append(out, e)
	}
	return r.Header(), out, nil
}

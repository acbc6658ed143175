package recording

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zstd"
)

// binReader streams a version 2 recording: one block in memory at a time
// (its stored bytes and its content, buffers reused from block to block).
type binReader struct {
	br   *bufio.Reader
	off  int64 // offset of the next byte to read
	zd   *zstd.Decoder
	stor []byte
	cont []byte
	dec  blockDecoder

	block    int   // blocks read (the current one's number)
	blockOff int64 // the current block's offset
	left     int   // events of the current block not yet decoded
	event    int   // events of the current block decoded
	firstNs  int64 // the current block's first event time, from its header
	last     Event // the last event decoded
	rowsCRC  uint32
	rowBuf   []byte
}

// newBinReader reads the file header (the magic already peeked at).
func newBinReader(br *bufio.Reader, cache *decimalCache) (*binReader, Header, error) {
	r := &binReader{br: br}
	r.dec.cache = cache
	var head [fileHeadSize]byte
	if err := r.readFull(head[:]); err != nil {
		return nil, Header{}, &BlockError{Err: r.truncated(err, "inside the file header")}
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != 2 {
		return nil, Header{}, &BlockError{Err: &VersionError{Got: int(v)}}
	}
	n := binary.LittleEndian.Uint32(head[12:])
	if n > maxHeaderJSON {
		return nil, Header{}, &BlockError{Err: corrupt("header of %d bytes", n)}
	}
	buf := make([]byte, n+4)
	if err := r.readFull(buf); err != nil {
		return nil, Header{}, &BlockError{Err: r.truncated(err, "inside the file header")}
	}
	crc := crc32.Update(crc32.Checksum(head[8:], castagnoli), castagnoli, buf[:n])
	if want := binary.LittleEndian.Uint32(buf[n:]); crc != want {
		return nil, Header{}, &BlockError{Err: corrupt("header checksum %08x, want %08x", crc, want)}
	}
	var h Header
	if err := json.Unmarshal(buf[:n], &h); err != nil {
		return nil, Header{}, &BlockError{Err: fmt.Errorf("%w: %v", ErrNotRecording, err)}
	}
	if err := h.check(2); err != nil {
		return nil, Header{}, &BlockError{Err: err}
	}
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBlockBytes),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, Header{}, fmt.Errorf("zstd: %w", err)
	}
	r.zd = zd
	return r, h, nil
}

func (r *binReader) readFull(b []byte) error {
	n, err := io.ReadFull(r.br, b)
	r.off += int64(n)
	return err
}

// truncated turns the end of the file where more was due into
// ErrTruncated; other read errors pass.
func (r *binReader) truncated(err error, where string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the file ends %s (offset %d)", ErrTruncated, where, r.off)
	}
	return err
}

// next returns the next event, io.EOF after the end record, or a
// *BlockError.
func (r *binReader) next() (Event, error) {
	for r.left == 0 {
		if err := r.nextBlock(); err != nil {
			return Event{}, err
		}
	}
	r.left--
	r.event++
	e, err := r.dec.next()
	if err == nil && r.event == 1 && e.Time().UnixNano() != r.firstNs {
		err = corrupt("first event at %d ns, the block header says %d", e.Time().UnixNano(), r.firstNs)
	}
	if err == nil && r.left == 0 && r.dec.pos != len(r.dec.b) {
		err = corrupt("%d bytes after the block's last event", len(r.dec.b)-r.dec.pos)
	}
	if err != nil {
		return Event{}, &BlockError{Block: r.block, Offset: r.blockOff, Event: r.event, Err: err}
	}
	r.last = e
	return e, nil
}

// nextBlock reads the next block header and, for a data block, its
// payload; at the end record it checks the index and the footer and
// returns io.EOF.
func (r *binReader) nextBlock() error {
	off := r.off
	num := r.block + 1
	fail := func(err error) error { return &BlockError{Block: num, Offset: off, Err: err} }
	var hb [blockHeadSize]byte
	if err := r.readFull(hb[:]); err != nil {
		if errors.Is(err, io.EOF) && r.off == off {
			return fail(fmt.Errorf("%w: the file ends after %d blocks, without its end record", ErrTruncated, r.block))
		}
		return fail(r.truncated(err, "inside a block header"))
	}
	h, err := parseBlockHead(hb[:])
	if err != nil {
		return fail(err)
	}
	if h.kind == blockEnd {
		return r.end(h, off, func(err error) error { return &BlockError{Block: -1, Offset: off, Err: err} })
	}
	if r.stor, err = r.readPayload(r.stor[:0], int(h.stored)); err != nil {
		return fail(r.truncated(err, fmt.Sprintf("inside block %d", num)))
	}
	if got := crc32.Checksum(r.stor, castagnoli); got != h.crc {
		return fail(corrupt("block checksum %08x, want %08x", got, h.crc))
	}
	content := r.stor
	if h.codec == codecZstd {
		if cap(r.cont) < int(h.content) {
			r.cont = make([]byte, 0, h.content)
		}
		if r.cont, err = r.zd.DecodeAll(r.stor, r.cont[:0:h.content]); err != nil {
			return fail(corrupt("zstd: %v", err))
		}
		if len(r.cont) != int(h.content) {
			return fail(corrupt("block decompresses to %d bytes, its header says %d", len(r.cont), h.content))
		}
		content = r.cont
	}
	if err := r.dec.reset(content); err != nil {
		return fail(err)
	}
	r.block, r.blockOff, r.left, r.event, r.firstNs = num, off, int(h.events), 0, h.time
	r.rowBuf = appendIndexRow(r.rowBuf[:0], indexRow{offset: off, events: h.events, time: h.time})
	r.rowsCRC = crc32.Update(r.rowsCRC, castagnoli, r.rowBuf)
	return nil
}

// readPayload reads n bytes, growing the buffer as the bytes arrive, so
// that a header claiming a large block in a short file allocates little.
func (r *binReader) readPayload(b []byte, n int) ([]byte, error) {
	const step = 1 << 20
	for len(b) < n {
		m := min(n-len(b), step)
		if cap(b)-len(b) < m {
			b = append(b[:cap(b)], make([]byte, m)...)[:len(b)]
		}
		if err := r.readFull(b[len(b) : len(b)+m]); err != nil {
			return b, err
		}
		b = b[:len(b)+m]
	}
	return b, nil
}

// end checks the end record against the blocks read: the index lists them
// all, with their offsets, counts and first times, the record has the last
// event's time, and the footer points back at the record. Nothing may
// follow.
func (r *binReader) end(h blockHead, off int64, fail func(error) error) error {
	var lastNs int64
	if r.block > 0 {
		lastNs = r.last.Time().UnixNano()
	}
	switch {
	case int(h.events) != r.block || int(h.stored) != r.block*indexEntry:
		return fail(corrupt("end record lists %d blocks in %d bytes, the file holds %d", h.events, h.stored, r.block))
	case h.crc != r.rowsCRC:
		return fail(corrupt("the index does not list the blocks read"))
	case h.time != lastNs:
		return fail(corrupt("end record says the last event is at %d ns, it is at %d", h.time, lastNs))
	}
	idx, err := r.readPayload(r.stor[:0], int(h.stored)+footSize)
	r.stor = idx
	if err != nil {
		return fail(r.truncated(err, "inside the end record"))
	}
	if got := crc32.Checksum(idx[:h.stored], castagnoli); got != h.crc {
		return fail(corrupt("index checksum %08x, want %08x", got, h.crc))
	}
	foot := idx[h.stored:]
	if int64(binary.LittleEndian.Uint64(foot)) != off || [8]byte(foot[8:]) != footMagic {
		return fail(corrupt("footer does not point at the end record"))
	}
	if _, err := r.br.ReadByte(); err != io.EOF {
		if err == nil {
			err = corrupt("data after the end of the recording (offset %d)", r.off)
		}
		return fail(err)
	}
	return io.EOF
}

func (r *binReader) close() {
	if r.zd != nil {
		r.zd.Close()
		r.zd = nil
	}
}

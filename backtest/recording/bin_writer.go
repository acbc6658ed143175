package recording

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zstd"
)

// blockTarget is the content size at which the writer closes a block: big
// enough for zstd to find the repeats between books, small enough that a
// reader holds little (about 1.3 MiB with the compressed bytes).
const blockTarget = 1 << 20

// maxEventBytes bounds what one event may take in a block, so that a
// block (blockTarget plus one event) stays below maxBlockBytes.
const maxEventBytes = maxBlockBytes / 2

// binWriter writes a version 2 recording: the file header, then a block
// each time the events pass blockTarget, then at close the last block, the
// end record with the index and the footer.
type binWriter struct {
	w      io.Writer
	off    int64 // bytes written
	zenc   *zstd.Encoder
	enc    blockEncoder
	cont   []byte
	stor   []byte
	head   []byte
	index  []byte // the end record's rows so far
	blocks uint32
	lastNs int64
	target int // blockTarget, or smaller in tests
}

// zstdLevel maps a gzip level (WithCompressionLevel) to zstd's levels.
func zstdLevel(gz int) zstd.EncoderLevel {
	switch {
	case gz == gzip.DefaultCompression:
		return zstd.SpeedDefault
	case gz <= gzip.BestSpeed:
		return zstd.SpeedFastest
	case gz >= gzip.BestCompression:
		return zstd.SpeedBestCompression
	case gz >= 7:
		return zstd.SpeedBetterCompression
	}
	return zstd.SpeedDefault
}

func newBinWriter(w io.Writer, h Header, level, target int) (*binWriter, error) {
	zenc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstdLevel(level)), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithWindowSize(blockTarget*2))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if target <= 0 {
		target = blockTarget
	}
	b := &binWriter{w: w, zenc: zenc, target: target}
	return b, b.write(appendFileHeader(nil, hj))
}

func (b *binWriter) write(p []byte) error {
	n, err := b.w.Write(p)
	b.off += int64(n)
	return err
}

// add encodes one validated event and closes the block when it is full.
// It returns the growth of the uncompressed data.
func (b *binWriter) add(e Event) (int64, error) {
	before := len(b.enc.ev) + len(b.enc.strs)
	if err := checkEventSize(e); err != nil {
		return 0, err
	}
	if err := b.enc.add(e); err != nil {
		return 0, err
	}
	b.lastNs = b.enc.last
	grown := int64(len(b.enc.ev) + len(b.enc.strs) - before)
	if b.enc.size() >= b.target {
		return grown, b.flush()
	}
	return grown, nil
}

// checkEventSize refuses an event whose encoding could pass maxEventBytes:
// at most 20 bytes a level and the strings.
func checkEventSize(e Event) error {
	var n int
	switch e.Kind {
	case KindBook:
		n = 20*(len(e.Book.Bids)+len(e.Book.Asks)) + len(e.Book.TokenID) + len(e.Book.Market)
	case KindTrade:
		n = len(e.Trade.TokenID) + len(e.Trade.Market)
	case KindMeta:
		n = len(e.Meta.TokenID) + len(e.Meta.Market)
	}
	if n > maxEventBytes-256 {
		return invalid("%s of about %d bytes: more than a block holds (%d)", e.Kind, n, maxEventBytes)
	}
	return nil
}

// flush writes the block being built, if it holds any event.
func (b *binWriter) flush() error {
	if b.enc.events == 0 {
		return nil
	}
	b.cont = b.enc.content(b.cont[:0])
	b.stor = b.zenc.EncodeAll(b.cont, b.stor[:0])
	h := blockHead{kind: blockData, codec: codecZstd, stored: uint32(len(b.stor)), content: uint32(len(b.cont)),
		events: uint32(b.enc.events), time: b.enc.first, crc: crc32.Checksum(b.stor, castagnoli)}
	b.index = appendIndexRow(b.index, indexRow{offset: b.off, events: h.events, time: h.time})
	b.blocks++
	b.head = append(b.head[:0], make([]byte, blockHeadSize)...)
	h.put(b.head)
	b.enc.reset()
	if err := b.write(b.head); err != nil {
		return err
	}
	return b.write(b.stor)
}

// finish writes the last block, the end record and the footer.
func (b *binWriter) finish() error {
	if err := b.flush(); err != nil {
		return err
	}
	end := b.off
	h := blockHead{kind: blockEnd, codec: codecRaw, stored: uint32(len(b.index)), content: uint32(len(b.index)),
		events: b.blocks, time: b.lastNs, crc: crc32.Checksum(b.index, castagnoli)}
	b.head = append(b.head[:0], make([]byte, blockHeadSize)...)
	h.put(b.head)
	if err := b.write(b.head); err != nil {
		return err
	}
	if err := b.write(b.index); err != nil {
		return err
	}
	return b.write(appendFooter(nil, end))
}

// close releases the compressor.
func (b *binWriter) close() {
	if b.zenc != nil {
		_ = b.zenc.Close()
		b.zenc = nil
	}
}

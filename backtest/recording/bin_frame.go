package recording

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// This file is the framing of a version 2 recording (docs/data-format.md,
// "Version 2"): the file header, the block headers, the end record with its
// index, and the footer. The events inside a block are bin_encode.go and
// bin_decode.go.

// binMagic opens every version 2 file. The first byte is not ASCII and
// not gzip's, and the CR LF catches a text-mode transfer.
var binMagic = [8]byte{0x89, 'M', 'M', 'R', 'E', 'C', '\r', '\n'}

// footMagic ends every complete version 2 file.
var footMagic = [8]byte{'M', 'M', 'R', 'E', 'C', 'E', 'N', 'D'}

// Sizes and limits of the framing.
const (
	fileHeadSize  = 16       // magic, version, header length
	maxHeaderJSON = 64 << 10 // the header's JSON
	blockHeadSize = 32       // a block header
	footSize      = 16       // end-record offset and footMagic
	indexEntry    = 24       // one block in the end record's index
	maxBlockBytes = 64 << 20 // a block's payload or content
)

// Block kinds and codecs.
const (
	blockData byte = 'B'
	blockEnd  byte = 'E'

	codecRaw  byte = 0
	codecZstd byte = 1
)

// castagnoli is CRC-32C, the checksum of every header and block.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt means a version 2 recording's bytes are not what it says they
// are: a checksum that does not match, an encoding that breaks the format.
var ErrCorrupt = errors.New("recording corrupt")

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

// BlockError locates a failure in a version 2 recording: the block (1 for
// the first block of events; 0 for the file header, -1 for the end
// record), the block's offset in the file and, for a failure inside the
// block's events, the 1-based event within the block.
type BlockError struct {
	Block  int
	Offset int64
	Event  int
	Err    error
}

func (e *BlockError) Error() string {
	switch {
	case e.Block == 0:
		return fmt.Sprintf("file header: %v", e.Err)
	case e.Block < 0:
		return fmt.Sprintf("end record at offset %d: %v", e.Offset, e.Err)
	case e.Event > 0:
		return fmt.Sprintf("block %d at offset %d, event %d: %v", e.Block, e.Offset, e.Event, e.Err)
	}
	return fmt.Sprintf("block %d at offset %d: %v", e.Block, e.Offset, e.Err)
}

func (e *BlockError) Unwrap() error { return e.Err }

// blockHead is a block header. For a data block: the stored payload's
// length, the length once decompressed, the number of events and the time
// of the first one; for the end record: the index's length (twice), the
// number of data blocks and the time of the file's last event.
type blockHead struct {
	kind, codec byte
	stored      uint32
	content     uint32
	events      uint32
	time        int64 // Unix nanoseconds; 0 when zero
	crc         uint32
}

func (h *blockHead) put(b []byte) {
	b[0], b[1], b[2], b[3] = h.kind, h.codec, 0, 0
	binary.LittleEndian.PutUint32(b[4:], h.stored)
	binary.LittleEndian.PutUint32(b[8:], h.content)
	binary.LittleEndian.PutUint32(b[12:], h.events)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.time))
	binary.LittleEndian.PutUint32(b[24:], h.crc)
	binary.LittleEndian.PutUint32(b[28:], crc32.Checksum(b[:28], castagnoli))
}

// parseBlockHead checks a block header's checksum and fields.
func parseBlockHead(b []byte) (blockHead, error) {
	if got, want := crc32.Checksum(b[:28], castagnoli), binary.LittleEndian.Uint32(b[28:]); got != want {
		return blockHead{}, corrupt("block header checksum %08x, want %08x", got, want)
	}
	h := blockHead{kind: b[0], codec: b[1],
		stored: binary.LittleEndian.Uint32(b[4:]), content: binary.LittleEndian.Uint32(b[8:]),
		events: binary.LittleEndian.Uint32(b[12:]), time: int64(binary.LittleEndian.Uint64(b[16:])),
		crc: binary.LittleEndian.Uint32(b[24:])}
	switch {
	case b[2] != 0 || b[3] != 0:
		return h, corrupt("block header reserved bytes %02x %02x", b[2], b[3])
	case h.stored > maxBlockBytes || h.content > maxBlockBytes:
		return h, corrupt("block of %d bytes (%d decompressed): more than %d", h.stored, h.content, maxBlockBytes)
	}
	switch h.kind {
	case blockData:
		if h.codec != codecRaw && h.codec != codecZstd {
			return h, corrupt("block codec %d", h.codec)
		}
		if h.codec == codecRaw && h.stored != h.content {
			return h, corrupt("raw block of %d bytes says %d decompressed", h.stored, h.content)
		}
		if h.events == 0 {
			return h, corrupt("data block without events")
		}
	case blockEnd:
		if h.codec != codecRaw || h.stored != h.content || uint64(h.stored) != uint64(h.events)*indexEntry {
			return h, corrupt("end record of %d bytes (%d, codec %d) for %d blocks", h.stored, h.content, h.codec, h.events)
		}
	default:
		return h, corrupt("block kind %#02x", h.kind)
	}
	return h, nil
}

// indexRow is one data block in the end record's index.
type indexRow struct {
	offset int64 // of the block header
	events uint32
	time   int64 // of the block's first event
}

func appendIndexRow(b []byte, r indexRow) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(r.offset))
	b = binary.LittleEndian.AppendUint32(b, r.events)
	b = binary.LittleEndian.AppendUint32(b, 0)
	return binary.LittleEndian.AppendUint64(b, uint64(r.time))
}

func parseIndexRow(b []byte) (indexRow, error) {
	if binary.LittleEndian.Uint32(b[12:]) != 0 {
		return indexRow{}, corrupt("index reserved field")
	}
	return indexRow{offset: int64(binary.LittleEndian.Uint64(b)), events: binary.LittleEndian.Uint32(b[8:]),
		time: int64(binary.LittleEndian.Uint64(b[16:]))}, nil
}

// appendFileHeader appends the file header: magic, version, the header's
// JSON and its checksum.
func appendFileHeader(b, headerJSON []byte) []byte {
	start := len(b)
	b = append(b, binMagic[:]...)
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(headerJSON)))
	b = append(b, headerJSON...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start+8:], castagnoli))
}

func appendFooter(b []byte, endOffset int64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(endOffset))
	return append(b, footMagic[:]...)
}

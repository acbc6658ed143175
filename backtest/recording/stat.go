package recording

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"
)

// Info describes a recording file.
type Info struct {
	Header Header
	Size   int64 // bytes on disk
	Events int64
	Blocks int       // version 2: data blocks; 0 for version 1
	First  time.Time // the first event's time; zero when there is none
	Last   time.Time // the last event's time
	// Checked is true when every event was read (and so every checksum and
	// every event checked); Stat of a version 2 file reads only its header
	// and index.
	Checked bool
}

// Stat describes the recording at path. For version 2 it reads the header,
// the end record and the index only: their checksums and consistency are
// checked, the blocks are not (read the file, or use Check, for that).
// Version 1 has no index, so Stat reads every event, as Check does.
func Stat(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("open recording: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	br := bufio.NewReader(f)
	if magic, _ := br.Peek(len(binMagic)); string(magic) != string(binMagic[:]) {
		return Check(path)
	}
	var cache decimalCache
	r, h, err := newBinReader(br, &cache)
	if err != nil {
		return Info{}, fmt.Errorf("recording %s: %w", path, err)
	}
	r.close()
	info := Info{Header: h, Size: fi.Size()}
	if err := statIndex(f, fi.Size(), r.off, &info); err != nil {
		return Info{}, fmt.Errorf("recording %s: %w", path, err)
	}
	return info, nil
}

// statIndex reads the footer, the end record and the index of a version 2
// file whose blocks start at first.
func statIndex(f io.ReaderAt, size, first int64, info *Info) error {
	var foot [footSize]byte
	if size < first+blockHeadSize+footSize {
		return &BlockError{Block: 1, Offset: first, Err: fmt.Errorf("%w: no end record", ErrTruncated)}
	}
	if _, err := f.ReadAt(foot[:], size-footSize); err != nil {
		return err
	}
	end := int64(binary.LittleEndian.Uint64(foot[:]))
	if [8]byte(foot[8:]) != footMagic || end < first || end > size-footSize-blockHeadSize {
		return &BlockError{Block: 1, Offset: first, Err: fmt.Errorf("%w: no footer at the end of the file (cut short?)", ErrTruncated)}
	}
	fail := func(err error) error { return &BlockError{Block: -1, Offset: end, Err: err} }
	var hb [blockHeadSize]byte
	if _, err := f.ReadAt(hb[:], end); err != nil {
		return fail(err)
	}
	h, err := parseBlockHead(hb[:])
	if err != nil {
		return fail(err)
	}
	if h.kind != blockEnd || end+blockHeadSize+int64(h.stored)+footSize != size {
		return fail(corrupt("the footer does not point at the end record"))
	}
	idx := make([]byte, h.stored)
	if _, err := f.ReadAt(idx, end+blockHeadSize); err != nil {
		return fail(err)
	}
	if crc32.Checksum(idx, castagnoli) != h.crc {
		return fail(corrupt("index checksum"))
	}
	prev := first - 1
	for i := 0; i < len(idx); i += indexEntry {
		row, err := parseIndexRow(idx[i:])
		if err != nil {
			return fail(err)
		}
		if row.offset <= prev || row.offset >= end {
			return fail(corrupt("index row %d: block offset %d", i/indexEntry+1, row.offset))
		}
		prev = row.offset
		if i == 0 {
			info.First = fromNanos(row.time)
		}
		info.Events += int64(row.events)
		info.Blocks++
	}
	info.Last = fromNanos(h.time)
	return nil
}

// Check reads every event of the recording at path (any version), which
// checks every checksum and every event, and describes it.
func Check(path string) (Info, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Info{}, fmt.Errorf("open recording: %w", err)
	}
	r, err := Open(path)
	if err != nil {
		return Info{}, err
	}
	defer r.Close()
	info := Info{Header: r.Header(), Size: fi.Size(), Checked: true}
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return info, fmt.Errorf("recording %s: %w", path, err)
		}
		if info.Events == 0 {
			info.First = e.Time()
		}
		info.Last = e.Time()
		info.Events++
	}
	if r.bin != nil {
		info.Blocks = r.bin.block
	}
	return info, nil
}

package recording

import (
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// Blocks is a version 2 recording's blocks in memory, for the benchmarks
// of each stage of reading: decompression alone, decoding alone.
type Blocks struct {
	Stored   [][]byte // as in the file (zstd frames)
	Contents [][]byte // decompressed
	Events   []int
	zd       *zstd.Decoder
	dec      blockDecoder
	cache    decimalCache
	buf      []byte
}

// ReadBlocks reads every data block of the version 2 recording at path.
func ReadBlocks(path string) (*Blocks, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.bin == nil {
		return nil, fmt.Errorf("%s is not a version 2 recording", path)
	}
	bs := &Blocks{}
	for {
		_, err := r.Next()
		if err == io.EOF {
			bs.zd, r.bin.zd = r.bin.zd, nil // kept by bs
			return bs, nil
		}
		if err != nil {
			return nil, err
		}
		if r.bin.event == 1 { // the first event of a block
			bs.Stored = append(bs.Stored, append([]byte(nil), r.bin.stor...))
			bs.Contents = append(bs.Contents, append([]byte(nil), r.bin.dec.b...))
			bs.Events = append(bs.Events, r.bin.left+1)
		}
	}
}

// Decompress decompresses every block into one reused buffer and returns
// the number of bytes.
func (bs *Blocks) Decompress() (int, error) {
	n := 0
	for _, c := range bs.Contents {
		if cap(bs.buf) < len(c) {
			bs.buf = make([]byte, 0, len(c))
		}
	}
	for _, s := range bs.Stored {
		var err error
		if bs.buf, err = bs.zd.DecodeAll(s, bs.buf[:0]); err != nil {
			return n, err
		}
		n += len(bs.buf)
	}
	return n, nil
}

// Decode decodes every event of the decompressed blocks and returns their
// number.
func (bs *Blocks) Decode() (int, error) { return bs.decode(false) }

// DecodeFixed is Decode as FixedLevelsOnly reads: Fixed levels only, in
// reused memory.
func (bs *Blocks) DecodeFixed() (int, error) { return bs.decode(true) }

func (bs *Blocks) decode(fixedOnly bool) (int, error) {
	bs.dec.cache = &bs.cache
	bs.dec.fixedOnly = fixedOnly
	n := 0
	for i, c := range bs.Contents {
		if err := bs.dec.reset(c); err != nil {
			return n, err
		}
		for j := 0; j < bs.Events[i]; j++ {
			if _, err := bs.dec.next(); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// WithBlockTarget closes version 2 blocks at n bytes of content instead of
// 1 MiB, so that small test files hold many blocks.
func WithBlockTarget(n int) WriterOption { return func(c *writerConfig) { c.target = n } }

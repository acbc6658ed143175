package recording

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func writeRecordingAs(t testing.TB, path string, evs []Event, opts ...WriterOption) {
	t.Helper()
	w, err := NewWriter(path, append([]WriterOption{WithSource("test"), WithCreated(fixture.T0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// assertEvents reads the recording at path and compares its events with
// want, by their canonical lines and times.
func assertEvents(t *testing.T, path string, want []Event) Header {
	t.Helper()
	h, got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		eventsEqual(t, i, got[i], want[i])
		if err := got[i].Validate(); err != nil {
			t.Fatalf("event %d decodes invalid: %v", i, err)
		}
	}
	return h
}

func TestRecordingV2RoundTrip(t *testing.T) {
	for _, target := range []int{0, 1} {
		t.Run(fmt.Sprint("block target ", target), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rec.mmrec")
			want := sampleEvents(t)
			writeRecordingAs(t, path, want, WithBlockTarget(target))
			h := assertEvents(t, path, want)
			if h != (Header{Format: Format, Version: 2, Created: fixture.T0, Source: "test"}) {
				t.Errorf("header = %+v", h)
			}
			_, got, _ := ReadAll(path)
			if b := got[1].Book; b.fx == nil || len(b.fx.Bids) != 3 || b.fx.Asks[1] != (Level{Price: 530_000, Size: 60_000_000}) {
				t.Errorf("book without its Fixed levels: %+v", b.fx)
			}
			if got[4].Book.Bids == nil || got[4].Book.fx.Bids == nil {
				t.Error("an empty side decodes as nil")
			}
		})
	}
}

// randomBooks makes books of three tokens, each an edit of the token's
// previous book: levels inserted, removed or resized anywhere, sides
// emptied and refilled, the terms changed now and then, with trades and
// metas between them.
func randomBooks(t testing.TB, seed uint64, n int, start time.Time) []Event {
	rng := rand.New(rand.NewPCG(seed, 7))
	toks := []string{"a", "bb", "ccc"}
	type side = []Level
	cur := map[string]*[2]side{}
	at := start
	var out []Event
	edit := func(s side, desc bool) side {
		s = append(side(nil), s...)
		switch rng.IntN(6) {
		case 0: // insert a level
			p := exchange.Fixed(1+rng.IntN(9999)) * 100
			i := 0
			for i < len(s) && (desc && s[i].Price > p || !desc && s[i].Price < p) {
				i++
			}
			if i < len(s) && s[i].Price == p {
				break
			}
			s = append(s[:i], append(side{{Price: p, Size: exchange.Fixed(rng.IntN(5_000_000_000))}}, s[i:]...)...)
		case 1: // remove one
			if len(s) > 0 {
				i := rng.IntN(len(s))
				s = append(s[:i], s[i+1:]...)
			}
		case 2: // resize one
			if len(s) > 0 {
				s[rng.IntN(len(s))].Size = exchange.Fixed(rng.IntN(1 << 40))
			}
		case 3: // empty it
			if rng.IntN(4) == 0 {
				s = nil
			}
		}
		return s
	}
	for len(out) < n {
		at = at.Add(time.Duration(rng.IntN(3000)) * time.Microsecond)
		tok := toks[rng.IntN(len(toks))]
		switch rng.IntN(10) {
		case 0:
			out = append(out, TradeEvent(&Trade{Stamp: Stamp{Exchange: at.Truncate(time.Millisecond), Received: at}, TokenID: tok, Market: "0xm",
				Price: exchange.Fixed(1 + rng.IntN(999_999)).Decimal(), Size: exchange.Fixed(1 + rng.IntN(1<<30)).Decimal(),
				TakerSide: []exchange.Side{"", exchange.Buy, exchange.Sell}[rng.IntN(3)]}))
		case 1:
			out = append(out, MetaEvent(&Meta{Stamp: Stamp{Received: at}, TokenID: tok, Market: "0xm",
				TickSize: exchange.Fixed(rng.IntN(2) * 1000).Decimal(), RewardDailyRate: exchange.Fixed(rng.IntN(3) * 1_500_000).Decimal()}))
		default:
			sides := cur[tok]
			if sides == nil {
				sides = &[2]side{}
				cur[tok] = sides
			}
			for k := 0; k < 1+rng.IntN(3); k++ {
				sides[0], sides[1] = edit(sides[0], true), edit(sides[1], false)
			}
			b := &Book{Stamp: Stamp{Received: at}, TokenID: tok, Market: "0xm", Bids: priceLevels(sides[0]), Asks: priceLevels(sides[1])}
			if rng.IntN(8) > 0 {
				b.TickSize, b.MinOrderSize = fixture.Dec("0.01"), fixture.Dec("5")
			}
			if rng.IntN(3) == 0 {
				b.Exchange = at.Truncate(time.Millisecond)
			}
			out = append(out, BookEvent(b))
		}
	}
	return out
}

func priceLevels(s []Level) []exchange.PriceLevel {
	out := make([]exchange.PriceLevel, len(s))
	for i, l := range s {
		out[i] = exchange.PriceLevel{Price: l.Price.Decimal(), Size: l.Size.Decimal()}
	}
	return out
}

// Books that edit their predecessors (the encoder's keep/drop/add) decode
// to the same books, across block boundaries, and a side that did not
// change is shared with the previous book of its token.
func TestRecordingV2BookEdits(t *testing.T) {
	want := randomBooks(t, 1, 3000, fixture.T0)
	path := filepath.Join(t.TempDir(), "rec.mmrec")
	writeRecordingAs(t, path, want, WithBlockTarget(4096))
	assertEvents(t, path, want)
	bs, err := ReadBlocks(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs.Stored) < 10 {
		t.Fatalf("%d blocks: the test wants many", len(bs.Stored))
	}
	_, got, _ := ReadAll(path)
	shared := 0
	last := map[string]*Book{}
	for _, e := range got {
		if e.Kind != KindBook {
			continue
		}
		if p := last[e.Book.TokenID]; p != nil && len(p.Bids) > 0 && len(e.Book.Bids) == len(p.Bids) && &p.Bids[0] == &e.Book.Bids[0] {
			shared++
		}
		last[e.Book.TokenID] = e.Book
	}
	if shared == 0 {
		t.Error("no unchanged side was shared with the previous book")
	}
}

// binSample is a small version 2 recording of many blocks.
func binSample(t *testing.T) ([]byte, []Event) {
	t.Helper()
	evs := append(sampleEvents(t)[:4:4], randomBooks(t, 2, 60, fixture.T0.Add(time.Minute))...)
	path := filepath.Join(t.TempDir(), "rec.mmrec")
	writeRecordingAs(t, path, evs, WithBlockTarget(256))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, evs
}

// readAllBytes reads a recording from memory: the events before the
// first error, and the error (nil at a clean end).
func readAllBytes(data []byte) (n int, err error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// Every cut of a version 2 file fails, as truncated, with the block it
// happened in; no cut reads as a shorter recording.
func TestRecordingV2Truncated(t *testing.T) {
	data, evs := binSample(t)
	if n, err := readAllBytes(data); err != nil || n != len(evs) {
		t.Fatalf("whole file: %d events, %v", n, err)
	}
	for cut := 0; cut < len(data); cut++ {
		n, err := readAllBytes(data[:cut])
		if err == nil {
			t.Fatalf("cut at %d of %d: %d events and no error", cut, len(data), n)
		}
		if cut < len(binMagic) {
			continue // not recognisably version 2: a version 1 error
		}
		var be *BlockError
		if !errors.As(err, &be) || !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut at %d: %v, want a *BlockError wrapping ErrTruncated", cut, err)
		}
	}
}

// Every byte changed is found (checksums, the format's checks): an error
// that is a *BlockError, never a panic nor a different recording.
func TestRecordingV2CorruptByte(t *testing.T) {
	data, evs := binSample(t)
	for i := range data {
		for _, x := range []byte{0x01, 0x80} {
			bad := bytes.Clone(data)
			bad[i] ^= x
			n, err := readAllBytes(bad)
			if err == nil {
				t.Fatalf("byte %d ^ %#x: %d events of %d and no error", i, x, n, len(evs))
			}
			var be *BlockError
			if i >= len(binMagic) && !errors.As(err, &be) {
				t.Fatalf("byte %d ^ %#x: %v is not a *BlockError", i, x, err)
			}
		}
	}
}

// The error names the block, its offset and, inside a block, the event.
func TestRecordingV2ErrorsNameTheBlock(t *testing.T) {
	data, _ := binSample(t)
	bs := blockOffsets(t, data)
	if len(bs) < 3 {
		t.Fatalf("%d blocks", len(bs))
	}
	bad := bytes.Clone(data)
	bad[bs[2]+blockHeadSize+3] ^= 0xff // the third block's payload
	_, err := readAllBytes(bad)
	var be *BlockError
	if !errors.As(err, &be) || be.Block != 3 || be.Offset != bs[2] || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err %v, want block 3 at offset %d, corrupt", err, bs[2])
	}
	if want := fmt.Sprintf("block 3 at offset %d: recording corrupt: block checksum", bs[2]); !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want it to start with %q", err, want)
	}

	// A block whose content breaks the format inside an event, with valid
	// checksums: the event is named.
	var enc blockEncoder
	if err := enc.add(sampleEvents(t)[1]); err != nil {
		t.Fatal(err)
	}
	content := enc.content(nil)
	content[len(content)-1] = 0x80 // the last level's size: a cut varint
	file := rawV2(t, [][]byte{content}, []int{1})
	_, err = readAllBytes(file)
	if !errors.As(err, &be) || be.Block != 1 || be.Event != 1 || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err %v, want block 1, event 1, corrupt", err)
	}
}

// blockOffsets lists the offsets of a version 2 file's data blocks, from
// its index.
func blockOffsets(t *testing.T, data []byte) []int64 {
	t.Helper()
	foot := data[len(data)-footSize:]
	end := int64(leUint64(foot))
	h, err := parseBlockHead(data[end : end+blockHeadSize])
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	idx := data[end+blockHeadSize : end+blockHeadSize+int64(h.stored)]
	for i := 0; i < len(idx); i += indexEntry {
		r, err := parseIndexRow(idx[i:])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.offset)
	}
	return out
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// rawV2 frames block contents as a version 2 file (raw codec, valid
// checksums and index), for tests that feed the decoder content of their
// own.
func rawV2(t testing.TB, contents [][]byte, events []int) []byte {
	t.Helper()
	b := appendFileHeader(nil, []byte(`{"format":"mmbot-recording","version":2,"created":"2026-03-01T12:00:00Z","source":"t"}`))
	var index []byte
	for i, c := range contents {
		h := blockHead{kind: blockData, codec: codecRaw, stored: uint32(len(c)), content: uint32(len(c)),
			events: uint32(events[i]), crc: crc(c)}
		index = appendIndexRow(index, indexRow{offset: int64(len(b)), events: h.events})
		hb := make([]byte, blockHeadSize)
		h.put(hb)
		b = append(append(b, hb...), c...)
	}
	end := int64(len(b))
	h := blockHead{kind: blockEnd, stored: uint32(len(index)), content: uint32(len(index)), events: uint32(len(contents)), crc: crc(index)}
	hb := make([]byte, blockHeadSize)
	h.put(hb)
	b = append(append(b, hb...), index...)
	return appendFooter(b, end)
}

func TestRecordingV2Versions(t *testing.T) {
	data, _ := binSample(t)
	v3 := bytes.Clone(data)
	v3[8] = 3
	_, err := readAllBytes(v3)
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Got != 3 || !strings.Contains(err.Error(), "unsupported recording version 3") {
		t.Errorf("version 3: %v", err)
	}
	// A JSON header that says version 2: version 2 is binary only.
	_, err = readBytes(rawRecording(t, strings.Replace(goodHeader, `"version":1`, `"version":2`, 1)))
	if !errors.As(err, &ve) || ve.Got != 2 {
		t.Errorf("JSON Lines of version 2: %v", err)
	}
	// A binary header that is not an mmbot recording's.
	other := appendFileHeader(nil, []byte(`{"format":"other","version":2}`))
	if _, err := readAllBytes(other); !errors.Is(err, ErrNotRecording) {
		t.Errorf("another format: %v", err)
	}
}

func TestRecordingV2WriterRefuses(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(filepath.Join(dir, "r.mmrec"))
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]Event{
		"before 1970": BookEvent(&Book{TokenID: "1", Stamp: Stamp{Received: time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC)}}),
		"after 2261":  BookEvent(&Book{TokenID: "1", Stamp: Stamp{Received: time.Date(2262, 6, 1, 0, 0, 0, 0, time.UTC)}}),
		"zero trade":  TradeEvent(&Trade{TokenID: "1", Stamp: Stamp{Exchange: fixture.Ms(11)}, Price: fixture.Dec("0.5")}),
	} {
		if err := w.Write(e); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s: %v, want ErrInvalidEvent", name, err)
		}
	}
	ok := BookEvent(&Book{TokenID: "1", Stamp: Stamp{Exchange: fixture.Ms(10)}})
	if err := w.Write(ok); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(BookEvent(&Book{TokenID: "1", Stamp: Stamp{Exchange: fixture.Ms(9)}})); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("out of order: %v", err)
	}
	// The refusals left the recording usable.
	if err := w.Write(ok); err != nil || w.Count() != 2 {
		t.Fatalf("write after refusals: %v, %d events", err, w.Count())
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		path string
		f    FileFormat
	}{{"a.jsonl.gz", FormatV2}, {"a.mmrec", FormatV1}} {
		if _, err := NewWriter(filepath.Join(dir, c.path), WithFormat(c.f)); err == nil || !strings.Contains(err.Error(), "needs a name ending in") {
			t.Errorf("%s as %s: %v", c.path, c.f, err)
		}
	}
	fixture.AssertDirEntries(t, dir)
}

func TestRecordingFormatForPath(t *testing.T) {
	for path, want := range map[string]FileFormat{
		"rec.mmrec": FormatV2, "REC.MMREC": FormatV2, "rec.jsonl.gz": FormatV1, "rec.gz": FormatV1, "rec.jsonl": FormatV1,
		"rec": FormatV2, "dir.gz/rec.bin": FormatV2,
	} {
		if got, _ := FormatForPath(path); got != want {
			t.Errorf("FormatForPath(%s) = %s, want %s", path, got, want)
		}
	}
	for s, want := range map[string]FileFormat{"": 0, "auto": 0, "v1": FormatV1, "2": FormatV2, "V2": FormatV2} {
		if got, err := ParseFileFormat(s); err != nil || got != want {
			t.Errorf("ParseFileFormat(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseFileFormat("v3"); err == nil {
		t.Error("v3 parsed")
	}
	if f, err := ResolveFormat("x.bin", FormatV1); err != nil || f != FormatV1 {
		t.Errorf("an unknown extension takes the format asked for: %v, %v", f, err)
	}
}

// Bytes and DataBytes of a version 2 writer: DataBytes grows with every
// event; Bytes is the file's size after Close.
func TestRecordingV2WriterByteCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.mmrec")
	w, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	prev := w.DataBytes()
	if prev == 0 {
		t.Fatal("DataBytes 0 after the header")
	}
	for i, e := range sampleEvents(t) {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
		if w.DataBytes() <= prev {
			t.Fatalf("event %d: DataBytes %d, was %d", i, w.DataBytes(), prev)
		}
		prev = w.DataBytes()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Bytes() != fi.Size() {
		t.Errorf("Bytes %d after Close, file size %d", w.Bytes(), fi.Size())
	}
}

// The files under testdata were written by earlier builds: they still
// read as the sample events, and the encoder still produces the blocks of
// the version 2 one (compressed bytes may differ between zstd versions;
// the content may not).
func TestRecordingGoldenFilesLoad(t *testing.T) {
	v1, v2 := filepath.Join("testdata", "sample-v1.jsonl.gz"), filepath.Join("testdata", "sample-v2.mmrec")
	if *update {
		writeRecordingAs(t, v1, sampleEvents(t))
		writeRecordingAs(t, v2, sampleEvents(t), WithBlockTarget(64))
	}
	if h := assertEvents(t, v1, sampleEvents(t)); h.Version != 1 {
		t.Errorf("%s: version %d", v1, h.Version)
	}
	if h := assertEvents(t, v2, sampleEvents(t)); h.Version != 2 {
		t.Errorf("%s: version %d", v2, h.Version)
	}
	fresh := filepath.Join(t.TempDir(), "fresh.mmrec")
	writeRecordingAs(t, fresh, sampleEvents(t), WithBlockTarget(64))
	a, err := ReadBlocks(v2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadBlocks(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Contents) < 2 || len(a.Contents) != len(b.Contents) {
		t.Fatalf("%d and %d blocks", len(a.Contents), len(b.Contents))
	}
	for i := range a.Contents {
		if !bytes.Equal(a.Contents[i], b.Contents[i]) {
			t.Errorf("block %d: the encoder's content changed:\n%x\n%x", i+1, a.Contents[i], b.Contents[i])
		}
	}
}

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// SkipLevels reads the same events without their levels, in both
// versions.
func TestRecordingSkipLevels(t *testing.T) {
	want := append(sampleEvents(t), randomBooks(t, 5, 2000, fixture.T0.Add(time.Minute))...)
	dir := t.TempDir()
	for _, name := range []string{"rec.mmrec", "rec.jsonl.gz"} {
		path := filepath.Join(dir, name)
		writeRecordingAs(t, path, want, WithBlockTarget(2048))
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r.SkipLevels()
		i := 0
		for e, err := range r.All() {
			if err != nil {
				t.Fatalf("%s: event %d: %v", name, i, err)
			}
			w := want[i]
			if w.Kind == KindBook {
				b := *w.Book
				b.Bids, b.Asks = nil, nil
				w = BookEvent(&b)
				if e.Book.Bids == nil || e.Book.Asks == nil || len(e.Book.Bids)+len(e.Book.Asks) != 0 {
					t.Fatalf("%s: event %d: levels %v %v", name, i, e.Book.Bids, e.Book.Asks)
				}
				var fb FixedBook
				if err := fb.SetFrom(e.Book); err != nil || len(fb.Bids)+len(fb.Asks) != 0 {
					t.Fatalf("%s: event %d: Fixed levels %v, %v", name, i, fb, err)
				}
			}
			eventsEqual(t, i, e, w)
			i++
		}
		r.Close()
		if i != len(want) {
			t.Errorf("%s: %d events, want %d", name, i, len(want))
		}
	}
}

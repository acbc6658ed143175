package recording

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
)

// binFuzzSeeds are block contents from the encoder: the samples and
// random book edits.
func binFuzzSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, evs := range [][]Event{sampleEvents(tb), randomBooks(tb, 3, 40, fixture.T0), {marketMeta()}} {
		var enc blockEncoder
		for _, e := range evs {
			if err := enc.add(e); err != nil {
				tb.Fatal(err)
			}
		}
		out = append(out, binary.AppendUvarint(nil, uint64(enc.events)), enc.content(nil))
	}
	return out
}

// FuzzRecordingV2Block feeds the block decoder content of the fuzzer's making
// (the checksums, which would stop nearly every mutation, are not in the
// way): it never panics, whatever it accepts is valid, and what it accepts
// encodes and decodes back to the same events.
func FuzzRecordingV2Block(f *testing.F) {
	seeds := binFuzzSeeds(f)
	for i := 0; i+1 < len(seeds); i += 2 {
		n, _ := binary.Uvarint(seeds[i])
		f.Add(uint16(n), seeds[i+1])
	}
	f.Fuzz(func(t *testing.T, n uint16, content []byte) {
		var cache decimalCache
		// Skipping the levels never panics, and gets as far as decoding
		// them.
		skip := blockDecoder{cache: &cache, skip: true}
		skipped := 0
		if skip.reset(content) == nil {
			for ; skipped < int(n); skipped++ {
				if _, err := skip.next(); err != nil {
					break
				}
			}
		}
		d := blockDecoder{cache: &cache}
		if d.reset(content) != nil {
			return
		}
		// The Fixed-only decoder (levels edited in place) accepts and
		// refuses the same events, with the same Fixed levels.
		fo := blockDecoder{cache: &cache, fixedOnly: true}
		if fo.reset(content) != nil {
			t.Fatal("the fixed-only decoder refuses a string table the full one accepts")
		}
		var evs []Event
		for i := 0; i < int(n); i++ {
			e, err := d.next()
			ef, errF := fo.next()
			if (err == nil) != (errF == nil) {
				t.Fatalf("event %d: full decode %v, fixed-only %v", i, err, errF)
			}
			if err != nil {
				return
			}
			if e.Kind == KindBook && (ef.Kind != KindBook || !reflect.DeepEqual(e.Book.FixedLevels(), ef.Book.FixedLevels()) ||
				ef.Book.Bids != nil || ef.Book.Asks != nil) {
				t.Fatalf("event %d: fixed-only %+v, want the levels of %+v", i, ef.Book, e.Book)
			}
			if i >= skipped {
				t.Fatalf("event %d decodes, but skipping its levels failed", i)
			}
			if err := e.Validate(); err != nil {
				t.Fatalf("event %d decodes invalid: %v\n%s", i, err, AppendLine(nil, e))
			}
			evs = append(evs, e)
		}
		var enc blockEncoder
		for _, e := range evs {
			if err := enc.add(e); err != nil {
				return // e.g. a time the writer refuses (after 2261)
			}
		}
		d2 := blockDecoder{cache: &cache}
		if err := d2.reset(enc.content(nil)); err != nil {
			t.Fatalf("re-encoded block: %v", err)
		}
		for i, e := range evs {
			e2, err := d2.next()
			if err != nil {
				t.Fatalf("re-encoded event %d: %v", i, err)
			}
			if a, b := AppendLine(nil, e), AppendLine(nil, e2); !bytes.Equal(a, b) || !e.Time().Equal(e2.Time()) {
				t.Fatalf("event %d changed through the encoder:\n%s%s", i, a, b)
			}
		}
	})
}

// FuzzRecordingV2File reads whole files: valid ones as seeds, then whatever the
// fuzzer makes of them. It never panics and never returns an event that
// does not validate.
func FuzzRecordingV2File(f *testing.F) {
	for _, target := range []int{64, 1 << 20} {
		path := filepath.Join(f.TempDir(), "seed.mmrec")
		writeRecordingAs(f, path, sampleEvents(f), WithBlockTarget(target))
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	seeds := binFuzzSeeds(f)
	f.Add(rawV2(f, [][]byte{seeds[1], seeds[3]}, []int{int(seeds[0][0]), int(seeds[2][0])}))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		defer r.Close()
		for i := 0; i < 1<<16; i++ {
			e, err := r.Next()
			if err != nil {
				return
			}
			if err := e.Validate(); err != nil {
				t.Fatalf("event %d decodes invalid: %v", i, err)
			}
		}
	})
}

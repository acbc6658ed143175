package recording

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

// A version 2 recording read with FixedLevelsOnly gives the same events
// with the books' decimal levels left out: the Fixed levels are those of a
// full decode, and LevelConverter turns them back into the very decimals
// (value and exponent) a full decode gives.
func TestRecordingV2FixedLevelsOnly(t *testing.T) {
	want := append(sampleEvents(t)[:5:5], randomBooks(t, 3, 2000, fixture.T0.Add(time.Minute))...)
	path := filepath.Join(t.TempDir(), "rec.mmrec")
	writeRecordingAs(t, path, want, WithBlockTarget(4096))
	_, full, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.FixedLevelsOnly()
	var conv LevelConverter
	i := 0
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		f := full[i]
		i++
		if e.Kind != KindBook {
			if !reflect.DeepEqual(e, f) {
				t.Fatalf("event %d: %+v, want %+v", i, e, f)
			}
			continue
		}
		b, fb := e.Book, f.Book
		if b.Bids != nil || b.Asks != nil {
			t.Fatalf("event %d: decimal levels decoded", i)
		}
		if !reflect.DeepEqual(b.FixedLevels(), fb.FixedLevels()) {
			t.Fatalf("event %d: Fixed levels %+v, want %+v", i, b.FixedLevels(), fb.FixedLevels())
		}
		if b.Stamp != fb.Stamp || b.TokenID != fb.TokenID || b.Market != fb.Market || !b.TickSize.Equal(fb.TickSize) || !b.MinOrderSize.Equal(fb.MinOrderSize) {
			t.Fatalf("event %d: %+v, want %+v", i, b, fb)
		}
		for side, got := range map[string][2][]exchange.PriceLevel{
			"bids": {conv.Append(nil, b.FixedLevels().Bids), fb.Bids},
			"asks": {conv.Append(nil, b.FixedLevels().Asks), fb.Asks},
		} {
			if len(got[0]) != len(got[1]) {
				t.Fatalf("event %d %s: %d levels, want %d", i, side, len(got[0]), len(got[1]))
			}
			for k := range got[0] {
				g, w := got[0][k], got[1][k]
				if g.Price.String() != w.Price.String() || g.Price.Exponent() != w.Price.Exponent() ||
					g.Size.String() != w.Size.String() || g.Size.Exponent() != w.Size.Exponent() {
					t.Fatalf("event %d %s level %d: %v, want %v", i, side, k, g, w)
				}
			}
		}
	}
	if i != len(full) {
		t.Errorf("%d events, want %d", i, len(full))
	}
}

package replay

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/report"
	"github.com/mmbot/mmbot/exchange"
)

// A replay from a version 2 file read with FixedLevelsOnly (as mmbot
// backtest reads) gives byte for byte the results of one that decodes the
// decimal levels, and of one from events held in memory with decimal
// levels only: the strategy sees the same books, converted from the Fixed
// levels the replay copies.
func TestReplayFixedLevelsOnlySameResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.mmrec")
	synthetic.Write(t, path, memBooks(4*time.Minute))
	evs := decimalOnly(t, path)
	for _, data := range []time.Duration{0, 20 * time.Millisecond} {
		cfg := benchRunConfig(t)
		cfg.Replay.Matcher.Latency.Data = fillmodel.Constant(data)
		run := func(name string, src func() (Source, func())) []byte {
			s, done := src()
			defer done()
			res, err := Run(context.Background(), s, cfg)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.Total.Fills == 0 {
				t.Fatalf("%s: no fills: the comparison would show little", name)
			}
			return reportBytes(t, res)
		}
		open := func(fixedOnly, prefetch bool) func() (Source, func()) {
			return func() (Source, func()) {
				r, err := recording.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				if fixedOnly {
					r.FixedLevelsOnly()
				}
				if !prefetch {
					return r, func() { _ = r.Close() }
				}
				p := Prefetch(r, 0, 0)
				return p, func() { p.Close(); _ = r.Close() }
			}
		}
		memory := run("memory", func() (Source, func()) { return &SliceSource{Events: evs}, func() {} })
		decimal := run("decimal levels", open(false, false))
		fixed := run("fixed levels", open(true, false))
		fixedPrefetch := run("fixed levels, prefetched", open(true, true))
		for name, got := range map[string][]byte{"decimal levels": decimal, "fixed levels": fixed, "fixed levels, prefetched": fixedPrefetch} {
			if !bytes.Equal(got, memory) {
				t.Errorf("data latency %s: the replay with %s differs from the replay from memory", data, name)
			}
		}
	}
}

// reportBytes renders every report of res, and the fills.
func reportBytes(t *testing.T, res *accounting.Results) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, w := range []func(*bytes.Buffer, *accounting.Results) error{
		func(b *bytes.Buffer, r *accounting.Results) error { return report.WriteJSON(b, r) },
		func(b *bytes.Buffer, r *accounting.Results) error { return report.WriteCSV(b, r) },
		func(b *bytes.Buffer, r *accounting.Results) error { return report.WriteSummary(b, r) },
	} {
		if err := w(&b, res); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range res.Fills {
		b.WriteString(reflect.ValueOf(f).String())
		b.WriteString(f.Time.String() + f.OrderID + f.Price.String() + f.Size.String() + f.Fee.String() + "\n")
	}
	return b.Bytes()
}

// The books the strategy reads are the same, level for level, whether the
// replay keeps a copy of their Fixed levels (a version 2 file read with
// FixedLevelsOnly) or the decimal book itself (a book built by hand).
func TestReplayBooksFromFixedLevels(t *testing.T) {
	v2 := filepath.Join(t.TempDir(), "rec.mmrec")
	synthetic.Write(t, v2, memBooks(time.Minute))
	open := func(src Source) *Replay {
		cfg := benchRunConfig(t).Replay
		cfg.HideOwnOrders = true
		r, err := New(src, cfg, accounting.NewAccumulator(accounting.AccumulatorConfig{}))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	rd, err := recording.Open(v2)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.FixedLevelsOnly()
	ref, got := open(&SliceSource{Events: decimalOnly(t, v2)}), open(rd)
	mk := synthetic.Market()
	toks := mk.TokenIDs[:]
	ctx := context.Background()
	compared := 0
	for step := 0; ; step++ {
		a, errA := ref.Books(ctx, toks)
		b, errB := got.Books(ctx, toks)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if len(a) != len(b) {
			t.Fatalf("step %d: %d books, want %d", step, len(b), len(a))
		}
		for i := range a {
			if levelsString(a[i].Bids) != levelsString(b[i].Bids) || levelsString(a[i].Asks) != levelsString(b[i].Asks) ||
				a[i].Timestamp != b[i].Timestamp || !a[i].TickSize.Equal(b[i].TickSize) {
				t.Fatalf("step %d, token %s:\n%+v\nwant\n%+v", step, a[i].AssetID, b[i], a[i])
			}
			if b[i].Bids == nil || b[i].Asks == nil {
				t.Fatalf("step %d: a nil side", step)
			}
			compared++
		}
		errA, errB = ref.Sleep(ctx, 137*time.Millisecond), got.Sleep(ctx, 137*time.Millisecond)
		if errA != nil || errB != nil {
			break
		}
	}
	if compared < 100 {
		t.Errorf("compared %d books", compared)
	}
}

func levelsString(ls []exchange.PriceLevel) string {
	var b bytes.Buffer
	for _, l := range ls {
		b.WriteString(l.Price.String() + "@" + l.Size.String() + " ")
	}
	return b.String()
}

// decimalOnly reads the events of path and rebuilds its books by hand, with
// decimal levels only (no Fixed ones), as a test or an importer builds them.
func decimalOnly(t *testing.T, path string) []recording.Event {
	t.Helper()
	_, evs, err := recording.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Kind == recording.KindBook {
			b := e.Book
			evs[i] = recording.BookEvent(&recording.Book{Stamp: b.Stamp, TokenID: b.TokenID, Market: b.Market, Bids: b.Bids, Asks: b.Asks,
				TickSize: b.TickSize, MinOrderSize: b.MinOrderSize})
			if evs[i].Book.FixedLevels() != nil {
				t.Fatal("a book built by hand has Fixed levels")
			}
		}
	}
	return evs
}

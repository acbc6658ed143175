package export_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/export"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// handEvents covers every case of the three files: books with and without
// a market, tick or minimum size, an empty book, a recorded and an imported
// stamp, trades with and without a taker side, a market-wide meta, reward
// terms, a resolution that pays 1 and one that pays 0.
func handEvents(t *testing.T) []recording.Event {
	t.Helper()
	rx := func(ms int) recording.Stamp {
		return recording.Stamp{Exchange: fixture.Ms(ms), Received: fixture.Ms(ms).Add(3417 * time.Microsecond).Add(123 * time.Nanosecond)}
	}
	imp := func(ms int) recording.Stamp { return recording.Stamp{Exchange: fixture.Ms(ms)} }
	d := fixture.Dec
	return []recording.Event{
		recording.MetaEvent(&recording.Meta{Stamp: imp(0), Market: "0xm", EndDate: fixture.T0.Add(30 * 24 * time.Hour)}),
		recording.MetaEvent(&recording.Meta{Stamp: imp(0), TokenID: "111", Market: "0xm", TickSize: d("0.01"), MinOrderSize: d("5"),
			RewardMaxSpread: d("3"), RewardMinSize: d("50"), RewardDailyRate: d("123.456789"),
			SecondsDelay: 3, NegRisk: true, Question: "Will it rain?", Slug: "will-it-rain"}),
		recording.BookEvent(&recording.Book{Stamp: rx(1), TokenID: "111", Market: "0xm", TickSize: d("0.01"), MinOrderSize: d("5"),
			Bids: fixture.Lv(t, "0.5:15", "0.49:20"), Asks: fixture.Lv(t, "0.52:25")}),
		recording.BookEvent(&recording.Book{Stamp: rx(1), TokenID: "222", Asks: fixture.Lv(t, "0.999999:9999999.999999")}),
		recording.TradeEvent(&recording.Trade{Stamp: rx(2), TokenID: "111", Market: "0xm", Price: d("0.485"), Size: d("219.217767"), TakerSide: exchange.Sell}),
		recording.TradeEvent(&recording.Trade{Stamp: imp(6), TokenID: "222", Price: d("0.000001"), Size: d("1")}),
		recording.BookEvent(&recording.Book{Stamp: rx(7), TokenID: "111", Market: "0xm"}),
		recording.MetaEvent(&recording.Meta{Stamp: rx(8), TokenID: "111", Market: "0xm", Resolved: true, Payout: d("1")}),
		recording.MetaEvent(&recording.Meta{Stamp: rx(8), TokenID: "222", Market: "0xm", Resolved: true}),
	}
}

// writeRecording writes events as a recording at path.
func writeRecording(t *testing.T, path string, events []recording.Event) {
	t.Helper()
	w, err := recording.NewWriter(path, recording.WithCreated(fixture.T0), recording.WithSource("export test"), recording.WithCompressionLevel(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func ts(t time.Time) string {
	if t.IsZero() {
		return "null"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func str(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func dec(d decimal.Decimal) string { return d.String() }

func optDec(d decimal.Decimal) string {
	if d.IsZero() {
		return "null"
	}
	return d.String()
}

// wantRecording computes the rows the three files should hold, from the
// events as the recording's Reader returns them.
func wantRecording(events []recording.Event) (books, trades, metas [][]string) {
	for seq, e := range events {
		head := func(s recording.Stamp) []string {
			return []string{strconv.Itoa(seq), ts(s.Time()), ts(s.Exchange), ts(s.Received)}
		}
		switch e.Kind {
		case recording.KindBook:
			b := e.Book
			tail := []string{optDec(b.TickSize), optDec(b.MinOrderSize)}
			if len(b.Bids)+len(b.Asks) == 0 {
				row := append(head(b.Stamp), b.TokenID, str(b.Market), "null", "null", "null", "null")
				books = append(books, append(row, tail...))
			}
			for _, side := range []struct {
				name string
				lv   []exchange.PriceLevel
			}{{"bid", b.Bids}, {"ask", b.Asks}} {
				for i, l := range side.lv {
					row := append(head(b.Stamp), b.TokenID, str(b.Market), side.name, strconv.Itoa(i), dec(l.Price), dec(l.Size))
					books = append(books, append(row, tail...))
				}
			}
		case recording.KindTrade:
			tr := e.Trade
			trades = append(trades, append(head(tr.Stamp), tr.TokenID, str(tr.Market), dec(tr.Price), dec(tr.Size), str(string(tr.TakerSide))))
		case recording.KindMeta:
			m := e.Meta
			resolved, payout := "null", "null"
			if m.Resolved {
				resolved, payout = "true", dec(m.Payout)
			}
			delay, negRisk := "null", "null"
			if m.SecondsDelay != 0 {
				delay = fmt.Sprint(m.SecondsDelay)
			}
			if m.NegRisk {
				negRisk = "true"
			}
			metas = append(metas, append(head(m.Stamp), str(m.TokenID), str(m.Market), optDec(m.TickSize), optDec(m.MinOrderSize),
				ts(m.EndDate), resolved, payout, optDec(m.RewardMaxSpread), optDec(m.RewardMinSize), optDec(m.RewardDailyRate),
				delay, negRisk, str(m.Question), str(m.Slug)))
		}
	}
	return books, trades, metas
}

func compareRows(t *testing.T, name string, got pqFile, want [][]string) {
	t.Helper()
	if len(got.rows) != len(want) {
		t.Errorf("%s: %d rows, want %d", name, len(got.rows), len(want))
	}
	bad := 0
	for i := range min(len(got.rows), len(want)) {
		if !reflect.DeepEqual(got.rows[i], want[i]) {
			t.Errorf("%s row %d:\n got %q\nwant %q", name, i, got.rows[i], want[i])
			if bad++; bad > 5 {
				t.Fatal("too many differences")
			}
		}
	}
}

// TestRecordingRoundTrip exports a recording and reads the three files
// back with parquet-go's Parquet reader: every value of every event is
// there, exactly, in recording order, and row groups are cut as asked.
func TestRecordingRoundTrip(t *testing.T) {
	events := handEvents(t)
	synthetic.Emit(t, synthetic.Config{Seed: 3, Duration: 5 * time.Second, Books: 10, Levels: 5, Trades: 2, Informed: 0.3, Vol: 0.5},
		func(e recording.Event) {
			// After the hand-made events, in time order.
			shift := func(s *recording.Stamp) { s.Exchange = s.Exchange.Add(time.Second) }
			switch e.Kind {
			case recording.KindBook:
				shift(&e.Book.Stamp)
			case recording.KindTrade:
				shift(&e.Trade.Stamp)
			case recording.KindMeta:
				shift(&e.Meta.Stamp)
			}
			events = append(events, e)
		})
	dir := t.TempDir()
	in := filepath.Join(dir, "rec.jsonl.gz")
	writeRecording(t, in, events)
	_, read, err := recording.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out") // created by the export
	n, err := export.Recording(context.Background(), in, out, export.Options{RowGroupRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	wantBooks, wantTrades, wantMetas := wantRecording(read)
	wantN := export.RecordingCounts{Events: int64(len(read)), Books: 0, Levels: int64(len(wantBooks)) - 1, EmptyBooks: 1,
		Trades: int64(len(wantTrades)), Metas: int64(len(wantMetas))}
	for _, e := range read {
		if e.Kind == recording.KindBook {
			wantN.Books++
		}
	}
	if n != wantN {
		t.Errorf("counts %+v, want %+v", n, wantN)
	}
	if len(wantTrades) < 5 || wantN.Levels < 500 {
		t.Fatalf("the synthetic recording is too small: %+v", wantN)
	}
	fixture.AssertDirEntries(t, out, export.BooksFile, export.MetaFile, export.TradesFile)
	books := readParquet(t, filepath.Join(out, export.BooksFile))
	compareRows(t, "books", books, wantBooks)
	compareRows(t, "trades", readParquet(t, filepath.Join(out, export.TradesFile)), wantTrades)
	meta := readParquet(t, filepath.Join(out, export.MetaFile))
	compareRows(t, "meta", meta, wantMetas)
	if want := (len(wantBooks) + 99) / 100; books.groups != want {
		t.Errorf("books.parquet has %d row groups, want %d", books.groups, want)
	}
	for k, v := range map[string]string{"mmbot.schema_version": "1", "mmbot.recording.format": "mmbot-recording",
		"mmbot.recording.version": "1", "mmbot.recording.source": "export test", "mmbot.recording.created": "2026-03-01T12:00:00Z"} {
		if meta.kv[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, meta.kv[k], v)
		}
	}
}

// An export that fails, on a bad event or a cancelled context, leaves no
// file behind (nor a temporary one), and keeps a previous export's files.
func TestRecordingFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "rec.jsonl.gz")
	writeRecording(t, in, handEvents(t))

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "cancelled")
	if _, err := export.Recording(cancelled, in, out, export.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled export: %v", err)
	}
	fixture.AssertDirEntries(t, out)

	// A truncated recording fails on its last line.
	src, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(cut, src[:len(src)-40], 0o644); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "cut")
	if _, err := export.Recording(context.Background(), cut, out, export.Options{}); !errors.Is(err, recording.ErrTruncated) {
		t.Fatalf("truncated recording: %v", err)
	}
	fixture.AssertDirEntries(t, out)

	// Over a previous export: its files stay as they were.
	out = filepath.Join(dir, "again")
	if _, err := export.Recording(context.Background(), in, out, export.Options{}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(out, export.BooksFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := export.Recording(context.Background(), cut, out, export.Options{}); err == nil {
		t.Fatal("truncated recording exported")
	}
	fixture.AssertDirEntries(t, out, export.BooksFile, export.MetaFile, export.TradesFile)
	after, err := os.ReadFile(filepath.Join(out, export.BooksFile))
	if err != nil || string(after) != string(before) {
		t.Errorf("books.parquet changed by a failed export (%v)", err)
	}
}

// A value its column cannot hold exactly fails the export, naming the
// column; nothing is rounded.
func TestRecordingNotRepresentable(t *testing.T) {
	dir := t.TempDir()
	w, err := export.NewRecordingWriter(dir, recording.Header{Format: recording.Format, Version: recording.Version}, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 10^12 shares: a valid Fixed, beyond DECIMAL(18,6).
	huge := recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: fixture.T0}, TokenID: "1",
		Price: fixture.Dec("0.5"), Size: fixture.Dec("1000000000000")})
	err = w.Write(huge)
	if !errors.Is(err, export.ErrNotRepresentable) || !containsAll(err.Error(), "column size", "trades.parquet") {
		t.Errorf("size 10^12: %v", err)
	}
	w.Abort()
	fixture.AssertDirEntries(t, dir)
}

// TestRecordingMemoryFlat: the writer's live heap does not grow with the
// number of events (rows go out a row group at a time). What does grow is
// the footer's metadata, a few KiB per row group (of 64Ki rows by
// default; 4Ki here, so that it shows): the bound allows for it.
func TestRecordingMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 320,000 rows of Parquet")
	}
	heap := func(events int) uint64 {
		dir := t.TempDir()
		w, err := export.NewRecordingWriter(dir, recording.Header{Format: recording.Format, Version: recording.Version}, export.Options{RowGroupRows: 4096})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		lv := fixture.Lv(t, "0.5:100", "0.49:200", "0.48:300", "0.47:400", "0.46:500")
		var peak uint64
		for i := range events {
			b := &recording.Book{Stamp: recording.Stamp{Received: fixture.Ms(i)}, TokenID: "token-" + strconv.Itoa(i%4), Market: "0xm", Bids: lv, Asks: lv[:3]}
			if err := w.Write(recording.BookEvent(b)); err != nil {
				t.Fatal(err)
			}
			if i%1_000 == 999 { // often enough to see each run's peak, wherever a row group stands
				peak = max(peak, liveHeap())
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return peak
	}
	// The peaks are noisy (the collector's timing, the allocator's pools;
	// under -race one run of 10,000 events peaked anywhere from 1.7 to 8.2
	// MiB), so each size runs twice: the larger peak of the small runs
	// against the smaller peak of the large ones. A heap that followed the
	// rows would lift every large run's peak to about three times the small
	// ones' and still fail.
	small := max(heap(10_000), heap(10_000))
	large := min(heap(30_000), heap(30_000))
	t.Logf("live heap: %d KiB at most after 10,000 events (80,000 rows), %d KiB at least up to 30,000 (240,000 rows)", small>>10, large>>10)
	// Three times the rows: a heap that followed them would triple; allow
	// half again plus 1 MiB for the footer and the collector's timing.
	if large > small+small/2+1<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB", small>>10, large>>10)
	}
}

// TestRecordingRoundTripBatches: rows reach the Parquet writer in batches
// of a few hundred, and a row group can end inside a batch or span many:
// whatever the row group size, every row is there, once, in order.
func TestRecordingRoundTripBatches(t *testing.T) {
	var events []recording.Event
	synthetic.Emit(t, synthetic.Config{Seed: 5, Duration: 20 * time.Second, Books: 10, Levels: 5, Trades: 2, Vol: 0.5},
		func(e recording.Event) { events = append(events, e) })
	dir := t.TempDir()
	in := filepath.Join(dir, "rec.jsonl.gz")
	writeRecording(t, in, events)
	_, read, err := recording.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	wantBooks, wantTrades, _ := wantRecording(read)
	if len(wantBooks) < 2_000 {
		t.Fatalf("the synthetic recording is too small: %d book rows", len(wantBooks))
	}
	for _, group := range []int{0, 7, 256, 300} {
		out := filepath.Join(dir, strconv.Itoa(group))
		if _, err := export.Recording(context.Background(), in, out, export.Options{RowGroupRows: group}); err != nil {
			t.Fatal(err)
		}
		books := readParquet(t, filepath.Join(out, export.BooksFile))
		compareRows(t, fmt.Sprintf("books (row groups of %d)", group), books, wantBooks)
		compareRows(t, fmt.Sprintf("trades (row groups of %d)", group), readParquet(t, filepath.Join(out, export.TradesFile)), wantTrades)
		size := cmp.Or(group, export.DefaultRowGroupRows)
		if want := (len(wantBooks) + size - 1) / size; books.groups != want {
			t.Errorf("row groups of %d: books.parquet has %d row groups, want %d", group, books.groups, want)
		}
	}
}

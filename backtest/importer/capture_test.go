package importer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// These tests import captures of the market channel written from the
// documented message shapes (testdata/*.jsonl, docs/data-format.md).

// importFixture imports testdata/name with opts and fails the test on an
// error.
func importFixture(t *testing.T, name string, opts Options) (*collect, Stats) {
	t.Helper()
	var c collect
	st, err := Import(context.Background(), bytes.NewReader(readFixture(t, name)), &c, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkAccounted(t, st)
	checkOrdered(t, c.evs)
	return &c, st
}

// checkOrdered checks time order and, per token, the same-time rule.
func checkOrdered(t *testing.T, evs []recording.Event) {
	t.Helper()
	type last struct {
		t    time.Time
		rank int
	}
	byTok := map[string]last{}
	for i, e := range evs {
		if i > 0 && e.Time().Before(evs[i-1].Time()) {
			t.Errorf("event %d out of time order", i)
		}
		r := recording.SameTimeRank(e.Kind)
		if l, ok := byTok[e.TokenID()]; ok && l.t.Equal(e.Time()) && r < l.rank {
			t.Errorf("event %d (%s of %s) after a later-ranked event of the same time", i, e.Kind, e.TokenID())
		}
		byTok[e.TokenID()] = last{e.Time(), r}
	}
}

// kinds is "B111 T111 M222 …": the events' kinds and tokens.
func kinds(evs []recording.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(strings.ToUpper(e.Kind.String()[:1]) + e.TokenID() + " ")
	}
	return strings.TrimSpace(b.String())
}

// levels is "0.5:100 0.49:25".
func levels(lv []exchange.PriceLevel) string {
	var b strings.Builder
	for _, l := range lv {
		b.WriteString(l.Price.String() + ":" + l.Size.String() + " ")
	}
	return strings.TrimSpace(b.String())
}

func lastBook(t *testing.T, evs []recording.Event, token string) *recording.Book {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == recording.KindBook && evs[i].Book.TokenID == token {
			return evs[i].Book
		}
	}
	t.Fatalf("no book of %s", token)
	return nil
}

// A live capture starts with an array frame and goes on with single
// messages (and frames of several): every message is imported.
func TestImportMixedArraysAndObjects(t *testing.T) {
	c, st := importFixture(t, "capture_mixed.jsonl", Options{})
	if st.Messages != 7 || st.Imported["book"] != 2 || st.Imported["price_change"] != 2 || st.Imported["last_trade_price"] != 2 ||
		st.Skipped["best_bid_ask: "+reasonNotUsed] != 1 {
		t.Errorf("stats %+v", st)
	}
	if got, want := kinds(c.evs), "B111 B222 B111 B222 T111 T222 B111"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	// The same messages one per line import the same.
	var lines bytes.Buffer
	for _, m := range splitMessages(t, readFixture(t, "capture_mixed.jsonl")) {
		lines.Write(m)
		lines.WriteByte('\n')
	}
	var d collect
	if _, err := Import(context.Background(), &lines, &d, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.lines, "") != strings.Join(c.lines, "") {
		t.Error("the capture and its messages one per line import differently")
	}
}

// splitMessages returns every message object of a JSON Lines capture.
func splitMessages(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	s := newStream(bufioReader(data), nil)
	err := s.values(func(raw json.RawMessage, _ int64) error {
		out = append(out, append([]byte(nil), raw...))
		return nil
	}, func(_ int64, err error) error { return err })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }

func gzipBytes(data []byte) []byte {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	_, _ = gz.Write(data)
	_ = gz.Close()
	return b.Bytes()
}

// An error names the failing message (1-based, counting the messages of
// earlier arrays) and the byte where it starts.
func TestImportErrorNamesMessageAndOffset(t *testing.T) {
	good := `{"event_type":"book","asset_id":"1","market":"0xm","timestamp":"1772366400000","bids":[{"price":"0.5","size":"1"}]}`
	bad := `{"event_type":"book","asset_id":"1","timestamp":"1772366400000","bids":[{"price":"x","size":"1"}]}`
	for _, c := range []struct {
		name, in string
		msg      int
	}{
		{"array then object", "[" + good + "," + good + "]\n" + bad + "\n", 3},
		{"objects", good + "\n" + good + "\n  " + bad + "\n", 3},
		{"array element", "[" + good + ",\n " + bad + "]", 2},
		{"frame of two after an object", good + "\n[" + good + ", " + bad + "]\n", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import(context.Background(), strings.NewReader(c.in), &collect{}, Options{})
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if want := int64(strings.Index(c.in, bad)); ie.Message != c.msg || ie.Offset != want {
				t.Errorf("message %d at byte %d, want message %d at byte %d: %v", ie.Message, ie.Offset, c.msg, want, err)
			}
			if !strings.Contains(err.Error(), "message ") || !strings.Contains(err.Error(), "(byte ") {
				t.Errorf("error %q does not say where", err)
			}
		})
	}
}

// The oldest price_change shape (price, side, size at the top level) is
// applied like the others.
func TestImportFlatPriceChange(t *testing.T) {
	c, st := importFixture(t, "price_change_flat.jsonl", Options{})
	if st.Imported["price_change"] != 2 || st.Books != 3 {
		t.Fatalf("stats %+v", st)
	}
	b := lastBook(t, c.evs, "111")
	if got := levels(b.Bids) + " / " + levels(b.Asks); got != "0.5:100 0.49:25 / " {
		t.Errorf("book %s", got)
	}
	// A price_change with no change at all is skipped, and counted.
	in := `{"event_type":"price_change","asset_id":"111","market":"0xabc","timestamp":"1772366400000"}`
	st, err := Import(context.Background(), strings.NewReader(in), &collect{}, Options{})
	if err != nil || st.Skipped[reasonNoChanges] != 1 {
		t.Errorf("empty price_change: %+v, %v", st, err)
	}
}

// For one token, a book and the trade it shows, of one timestamp, are
// written trade first, whatever order they came in: so the queue ahead of
// a resting order drops once by the traded size, not twice.
func TestImportSameTimeTradeBeforeBook(t *testing.T) {
	c, _ := importFixture(t, "same_time.jsonl", Options{})
	if got, want := kinds(c.evs), "B111 T111 B111"; got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
	m, err := fillmodel.NewMatcher("111", fillmodel.MatcherConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var book recording.FixedBook
	for i, e := range c.evs {
		switch e.Kind {
		case recording.KindBook:
			if err := book.SetFrom(e.Book); err != nil {
				t.Fatal(err)
			}
			m.OnBook(&book, e.Time())
			if i == 0 {
				if _, err := m.Place(fillmodel.VirtualOrder{ID: "ours", Side: exchange.Buy, Price: fixture.Fx(t, "0.5"), Size: fixture.Fx(t, "5")}, e.Time()); err != nil {
					t.Fatal(err)
				}
				m.Advance(e.Time())
			}
		case recording.KindTrade:
			mt, err := fillmodel.MatchTradeFrom(e.Trade)
			if err != nil {
				t.Fatal(err)
			}
			m.OnTrade(mt, e.Time())
		}
	}
	if ahead, _ := m.QueueAhead("ours"); ahead != fixture.Fx(t, "90") {
		t.Errorf("queue ahead %s after a trade of 10 against 100 ahead, want 90", ahead)
	}
}

// One match sent as several price_change messages crosses the book between
// them: no crossed book is written, and the repairs are counted.
func TestImportCrossedBurst(t *testing.T) {
	for _, c := range []struct {
		file, rule string
	}{
		{"crossed_burst.jsonl", crossedByBest},
		{"crossed_burst_changes.jsonl", crossedByStale},
	} {
		t.Run(c.file, func(t *testing.T) {
			col, st := importFixture(t, c.file, Options{})
			for i, e := range col.evs {
				if b := e.Book; e.Kind == recording.KindBook && len(b.Bids) > 0 && len(b.Asks) > 0 && !b.Bids[0].Price.LessThan(b.Asks[0].Price) {
					t.Errorf("event %d: crossed book %s / %s", i, levels(b.Bids), levels(b.Asks))
				}
			}
			if st.Crossed[c.rule] != 1 || len(st.Crossed) != 1 || st.LevelsDropped != 2 {
				t.Errorf("crossed %v, levels dropped %d; want 1 by %q, 2 levels", st.Crossed, st.LevelsDropped, c.rule)
			}
			b := lastBook(t, col.evs, "111")
			if got := levels(b.Bids) + " / " + levels(b.Asks); got != "0.53:50 0.5:100 / 0.54:70" {
				t.Errorf("final book %s", got)
			}
			if got, want := kinds(col.evs), "B111 T111 T111 B111 B111"; got != want {
				t.Errorf("events %s, want %s", got, want)
			}
		})
	}
	// A crossed snapshot is not written; its levels stay for the changes.
	in := `{"event_type":"book","asset_id":"1","market":"0xm","timestamp":"1772366400000","bids":[{"price":"0.5","size":"1"}],"asks":[{"price":"0.49","size":"1"}]}
{"event_type":"price_change","market":"0xm","price_changes":[{"asset_id":"1","price":"0.49","size":"0","side":"SELL"}],"timestamp":"1772366401000"}`
	var col collect
	st, err := Import(context.Background(), strings.NewReader(in), &col, Options{})
	if err != nil || st.Skipped[reasonCrossedSnap] != 1 || st.Books != 1 || levels(col.evs[0].Book.Bids) != "0.5:1" {
		t.Errorf("crossed snapshot: %+v, %v", st, err)
	}
	checkAccounted(t, st)
}

func catalogMarkets(t *testing.T, name string) []Market {
	t.Helper()
	ms, err := LoadCatalog(bytes.NewReader(readFixture(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// The terms of a market come from a catalog snapshot (GET /markets as a
// page, or mmbot markets --json): one meta per token before the market's
// first event, YES first whatever token the capture shows first.
func TestImportTermsFromCatalog(t *testing.T) {
	page := catalogMarkets(t, "catalog_page.json")
	if len(page) != 2 || page[0].ConditionID != "0xabc" || strings.Join(page[0].Tokens, ",") != "111,222" {
		t.Fatalf("catalog %+v", page)
	}
	arr := catalogMarkets(t, "catalog_array.json")
	if len(arr) != 1 || strings.Join(arr[0].Tokens, ",") != "111,222" {
		t.Fatalf("catalog (NO listed first) %+v", arr)
	}
	for name, ms := range map[string][]Market{"page": page, "array": arr} {
		t.Run(name, func(t *testing.T) {
			c, st := importFixture(t, "two_sided.jsonl", Options{Markets: ms})
			if got, want := kinds(c.evs), "M111 M222 B222 B111 T111"; got != want {
				t.Fatalf("events %s, want %s", got, want)
			}
			for _, e := range c.evs[:2] {
				m := e.Meta
				if m.Market != "0xabc" || m.TickSize.String() != "0.01" || m.MinOrderSize.String() != "5" ||
					!m.EndDate.Equal(time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)) || m.RewardMaxSpread.String() != "3.5" ||
					m.RewardMinSize.String() != "50" || m.RewardDailyRate.String() != "20" || !m.Exchange.Equal(fixture.T0) {
					t.Errorf("terms meta %+v", m)
				}
			}
			// The books carry the terms the capture lacks.
			if b := c.evs[2].Book; b.TickSize.String() != "0.01" || b.MinOrderSize.String() != "5" {
				t.Errorf("book of 222: tick %s, min %s", b.TickSize, b.MinOrderSize)
			}
			if len(st.Warnings) != 0 {
				t.Errorf("warnings %q", st.Warnings)
			}
		})
	}
	// A page, an array and a single market, one after the other, are one
	// snapshot; a market listed twice keeps its last listing.
	both := append(append(readFixture(t, "catalog_page.json"), readFixture(t, "catalog_array.json")...),
		[]byte(`{"condition_id":"0xdef","minimum_tick_size":"0.1","minimum_order_size":1,"tokens":[]}`)...)
	ms, err := LoadCatalog(bytes.NewReader(both))
	if err != nil || len(ms) != 2 || ms[1].Terms.Tick.String() != "0.1" {
		t.Errorf("catalog of three values: %+v, %v", ms, err)
	}
	for _, bad := range []string{`7`, `{"foo":1}`, `[{"condition_id":""}]`, `{"condition_id":"0x1","end_date_iso":"soon"}`} {
		if _, err := LoadCatalog(strings.NewReader(bad)); err == nil {
			t.Errorf("catalog %s accepted", bad)
		}
	}
}

// Terms given as options (command-line flags) apply to every market, and
// win over the catalog's.
func TestImportTermsFromFlags(t *testing.T) {
	end := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	flags := Terms{Tick: fixture.Dec("0.001"), MinSize: fixture.Dec("10"), EndDate: end}
	flags.Rewards.DailyRate = fixture.Dec("7.5")
	c, _ := importFixture(t, "two_sided.jsonl", Options{Terms: flags})
	// No catalog: each token's terms go before its first event. Token
	// 111's book says another tick than the flags: a change of the
	// market's tick, so token 222 gets a meta of it (one tick per market).
	if got, want := kinds(c.evs), "M222 B222 M222 M111 B111 T111"; got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
	m := c.evs[0].Meta
	if m.TickSize.String() != "0.001" || m.MinOrderSize.String() != "10" || !m.EndDate.Equal(end) || m.RewardDailyRate.String() != "7.5" ||
		m.Market != "0xabc" {
		t.Errorf("terms meta %+v", m)
	}
	// The book's own tick_size wins from its time on; the minimum size
	// comes from the flags.
	if m := c.evs[2].Meta; m.TickSize.String() != "0.01" || m.TokenID != "222" {
		t.Errorf("tick change of 222: %+v", m)
	}
	if b := c.evs[4].Book; b.TickSize.String() != "0.01" || b.MinOrderSize.String() != "10" {
		t.Errorf("book of 111: tick %s, min %s", b.TickSize, b.MinOrderSize)
	}
	c, _ = importFixture(t, "two_sided.jsonl", Options{Terms: flags, Markets: catalogMarkets(t, "catalog_page.json")})
	if m := c.evs[0].Meta; m.MinOrderSize.String() != "10" || m.RewardMinSize.String() != "50" || m.RewardDailyRate.String() != "7.5" {
		t.Errorf("flags over the catalog: %+v", m)
	}
	// Terms the exchange would not have are refused.
	_, err := Import(context.Background(), bytes.NewReader(readFixture(t, "two_sided.jsonl")), &collect{}, Options{Terms: Terms{Tick: fixture.Dec("0.02")}})
	if err == nil || !strings.Contains(err.Error(), "tick size 0.02") {
		t.Errorf("tick 0.02: %v", err)
	}
}

// A capture of one outcome: without Complement the output lacks the other
// outcome, and the warnings say so and how to derive it; with Complement
// the other outcome's books and trades are the mirror at 1 − p.
func TestImportOneSided(t *testing.T) {
	cat := catalogMarkets(t, "catalog_page.json")
	c, st := importFixture(t, "one_sided.jsonl", Options{Markets: cat})
	if strings.Contains(kinds(c.evs), "B222") || len(st.Warnings) != 1 ||
		!strings.Contains(st.Warnings[0], "only token 111 has books") || !strings.Contains(st.Warnings[0], "--complement") {
		t.Errorf("without Complement: events %s, warnings %q", kinds(c.evs), st.Warnings)
	}
	c, st = importFixture(t, "one_sided.jsonl", Options{Markets: cat, Complement: true})
	if got, want := kinds(c.evs), "M111 M222 B111 B222 B111 B222 T111 T222 B111 B222"; got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
	if st.DerivedBooks != 3 || st.DerivedTrades != 1 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "derived from token 111") {
		t.Errorf("stats %+v", st)
	}
	no := c.evs[3].Book
	if got := levels(no.Bids) + " / " + levels(no.Asks); got != "0.48:80 0.47:60 / 0.52:100 0.53:50" || no.Market != "0xabc" ||
		no.TickSize.String() != "0.01" || no.MinOrderSize.String() != "5" {
		t.Errorf("derived NO book %s, %+v", got, no)
	}
	if tr := c.evs[7].Trade; tr.TokenID != "222" || tr.Price.String() != "0.48" || tr.Size.String() != "20" || tr.TakerSide != exchange.Sell {
		t.Errorf("derived trade %+v", tr)
	}
	// Without the other outcome's token id nothing can be derived: the
	// warning asks for a catalog.
	_, st = importFixture(t, "one_sided.jsonl", Options{Complement: true})
	if st.DerivedBooks != 0 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "catalog") {
		t.Errorf("no catalog: %+v", st)
	}
	// The derivation stops at the token's own first book.
	own := string(readFixture(t, "one_sided.jsonl")) +
		`{"event_type":"book","asset_id":"222","market":"0xabc","bids":[{"price":"0.4","size":"1"}],"asks":[{"price":"0.6","size":"1"}],"timestamp":"1772366401000"}` + "\n" +
		`{"event_type":"last_trade_price","asset_id":"111","market":"0xabc","price":"0.52","size":"1","side":"BUY","timestamp":"1772366401500"}` + "\n"
	var d collect
	st, err := Import(context.Background(), strings.NewReader(own), &d, Options{Markets: cat, Complement: true})
	if err != nil || !strings.HasSuffix(kinds(d.evs), "B111 B222 B222 T111") || st.DerivedBooks != 3 || st.DerivedTrades != 1 || len(st.Warnings) != 0 {
		t.Errorf("own book after derived ones: %s, %+v, %v", kinds(d.evs), st, err)
	}
}

// ImportFiles reads names and globs, gzip or not, as one stream, and
// names its inputs in the header's source.
func TestImportFilesGlobGzipSource(t *testing.T) {
	dir := t.TempDir()
	all := splitMessages(t, readFixture(t, "capture_mixed.jsonl"))
	var first, second bytes.Buffer
	for i, m := range all {
		dst := &first
		if i >= 3 {
			dst = &second
		}
		dst.Write(m)
		dst.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "ws-01.jsonl"), first.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ws-02.jsonl.gz"), gzipBytes(second.Bytes()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rec.jsonl.gz")
	var progress []Progress
	st, err := ImportFiles(context.Background(), []string{filepath.Join(dir, "ws-*")}, out,
		Options{ProgressEvery: 2, Progress: func(p Progress) { progress = append(progress, p) }}, recording.WithCreated(fixture.T0))
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, st)
	h, evs, err := recording.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if h.Source != "import: ws-01.jsonl, ws-02.jsonl.gz" || len(st.Files) != 2 {
		t.Errorf("source %q, files %q", h.Source, st.Files)
	}
	want, _ := importFixture(t, "capture_mixed.jsonl", Options{})
	if len(evs) != len(want.evs) || st.Messages != 7 {
		t.Errorf("%d events from the files, %d from the capture; stats %+v", len(evs), len(want.evs), st)
	}
	if len(progress) != 3 || progress[2].Messages != 6 || progress[2].File != filepath.Join(dir, "ws-02.jsonl.gz") ||
		progress[2].Total == 0 || progress[2].Read > progress[2].Total {
		t.Errorf("progress %+v", progress)
	}
	// A glob that matches nothing, and an input that fails, leave no file.
	out2 := filepath.Join(dir, "none.jsonl.gz")
	if _, err := ImportFiles(context.Background(), []string{filepath.Join(dir, "nope-*")}, out2, Options{}); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("empty glob: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ws-03.jsonl"), []byte("{\"event_type\":\"book\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ImportFiles(context.Background(), []string{filepath.Join(dir, "ws-*")}, out2, Options{})
	var ie *Error
	if !errors.As(err, &ie) || ie.File != filepath.Join(dir, "ws-03.jsonl") || ie.Message != 1 || !strings.HasPrefix(err.Error(), ie.File+": message 1 (byte 0): ") {
		t.Errorf("error in the third file: %v", err)
	}
	if _, err := os.Stat(out2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed import left %s", out2)
	}
	if got := SourceOf([]string{"a", "b", "c", "d", "e", "f"}); got != "import: a, b, c, and 3 more" {
		t.Errorf("SourceOf six files: %q", got)
	}
}

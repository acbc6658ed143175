package importer

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/internal/golden"

	"github.com/mmbot/mmbot/exchange"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// collect is an EventSink that keeps the events' recording lines.
type collect struct {
	lines []string
	evs   []recording.Event
}

func (c *collect) Write(e recording.Event) error {
	c.evs = append(c.evs, e)
	c.lines = append(c.lines, string(recording.AppendLine(nil, e)))
	return nil
}

// checkAccounted checks that every message was imported or skipped.
func checkAccounted(t *testing.T, st Stats) {
	t.Helper()
	n := 0
	for _, c := range st.Imported {
		n += c
	}
	for _, c := range st.Skipped {
		n += c
	}
	if n != st.Messages {
		t.Errorf("%d messages read, %d imported or skipped: %+v", st.Messages, n, st)
	}
	if st.Events != st.Books+st.Trades+st.Metas {
		t.Errorf("events %d != books + trades + metas: %+v", st.Events, st)
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got, *update)
}

func TestImportFixtures(t *testing.T) {
	opts := Options{Terms: Terms{MinSize: fixture.Dec("5")}}
	var outputs []string
	for _, name := range []string{"ws_messages.jsonl", "ws_messages.json", "ws_messages.json.gz"} {
		t.Run(name, func(t *testing.T) {
			data := readFixture(t, name)
			var c collect
			st, err := Import(context.Background(), bytes.NewReader(data), &c, opts)
			if err != nil {
				t.Fatal(err)
			}
			// 11 messages; 2 skipped (best_bid_ask, the price change of a token without a book).
			// Metas: the terms of tokens 111 and 222, a tick change (of
			// token 111's message, for both tokens: one tick per market), two
			// resolutions.
			if st.Messages != 11 || st.Books != 6 || st.Trades != 2 || st.Metas != 6 ||
				st.Skipped["best_bid_ask: "+reasonNotUsed] != 1 || st.Skipped[reasonBeforeBook] != 1 {
				t.Errorf("stats = %+v", st)
			}
			checkAccounted(t, st)
			for i := 1; i < len(c.evs); i++ {
				if c.evs[i].Time().Before(c.evs[i-1].Time()) {
					t.Errorf("event %d out of order", i)
				}
			}
			outputs = append(outputs, strings.Join(c.lines, ""))
		})
	}
	if len(outputs) != 3 || outputs[0] != outputs[1] || outputs[0] != outputs[2] {
		t.Fatal("JSON Lines, JSON array and gzip inputs converted differently")
	}
	checkGolden(t, "ws_messages.golden.jsonl", []byte(outputs[0]))
}

// readFixture reads testdata/name; a ".gz" name is the gzip of the file
// without the suffix, made on the fly.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	base := strings.TrimSuffix(name, ".gz")
	data, err := os.ReadFile(filepath.Join("testdata", base))
	if err != nil {
		t.Fatal(err)
	}
	if base == name {
		return data
	}
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	_, _ = gz.Write(data)
	_ = gz.Close()
	return b.Bytes()
}

func TestImportFileWritesRecording(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rec.jsonl.gz")
	st, err := ImportFiles(context.Background(), []string{filepath.Join("testdata", "ws_messages.json")}, out, Options{}, recording.WithCreated(fixture.T0))
	if err != nil {
		t.Fatal(err)
	}
	_, evs, err := recording.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != st.Books+st.Trades+st.Metas {
		t.Errorf("recording has %d events, stats %+v", len(evs), st)
	}
	// A failing import leaves no recording behind.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"event_type":"book","asset_id":"1","timestamp":"1772366400000","bids":[{"price":"x","size":"1"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(t.TempDir(), "bad.gz")
	if _, err := ImportFiles(context.Background(), []string{bad}, out2, Options{}); err == nil {
		t.Fatal("bad input imported")
	}
	if _, err := os.Stat(out2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed import left %s: %v", out2, err)
	}
}

var importErrorCases = []struct {
	name string
	in   string
	msg  int
}{
	{"no timestamp", `{"event_type":"last_trade_price","asset_id":"1","price":"0.5","size":"1"}`, 1},
	{"bad price", `{"event_type":"book","asset_id":"1","timestamp":"1772366400000","bids":[{"price":"x","size":"1"}]}`, 1},
	{"duplicate level", `{"event_type":"book","asset_id":"1","timestamp":"1772366400000","bids":[{"price":"0.5","size":"1"},{"price":"0.50","size":"2"}]}`, 1},
	{"zero trade", `{"event_type":"book","asset_id":"1","timestamp":"1772366400000"}` + "\n" + `{"event_type":"last_trade_price","asset_id":"1","price":"0.5","size":"0","timestamp":"1772366400000"}`, 2},
	{"bad side", `{"event_type":"last_trade_price","asset_id":"1","price":"0.5","size":"1","side":"UP","timestamp":"1772366400000"}`, 1},
	{"truncated", `[{"event_type":"book","asset_id":"1","timestamp":"1772366400000"},{"event_`, 2},
	{"not messages", `[1,2]`, 1},
	{"too late", `{"event_type":"last_trade_price","asset_id":"1","price":"0.5","size":"1","timestamp":"1772366400000"}` + "\n" +
		`{"event_type":"last_trade_price","asset_id":"1","price":"0.5","size":"1","timestamp":"1772366500000"}` + "\n" +
		`{"event_type":"last_trade_price","asset_id":"1","price":"0.5","size":"1","timestamp":"1772366300000"}`, 3},
	{"tick without size", `{"event_type":"tick_size_change","asset_id":"1","timestamp":"1772366400000"}`, 1},
	{"bad change side", `{"event_type":"book","asset_id":"1","timestamp":"1772366400000"}` + "\n" +
		`{"event_type":"price_change","asset_id":"1","changes":[{"price":"0.5","size":"1","side":"X"}],"timestamp":"1772366400000"}`, 2},
}

func TestImportErrors(t *testing.T) {
	for _, c := range importErrorCases {
		t.Run(c.name, func(t *testing.T) {
			var sink collect
			_, err := Import(context.Background(), strings.NewReader(c.in), &sink, Options{Window: 1})
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *ImportError", err)
			}
			if ie.Message != c.msg {
				t.Errorf("error at message %d, want %d: %v", ie.Message, c.msg, err)
			}
		})
	}
}

func TestImportEmptyAndCancelled(t *testing.T) {
	var c collect
	if st, err := Import(context.Background(), strings.NewReader("  \n"), &c, Options{}); err != nil || st.Messages != 0 {
		t.Errorf("empty input: %+v, %v", st, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := strings.Repeat(`{"event_type":"other"}`+"\n", 5000)
	if _, err := Import(ctx, strings.NewReader(big), &c, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled import: %v", err)
	}
}

func FuzzImport(f *testing.F) {
	for _, c := range importErrorCases {
		f.Add([]byte(c.in))
	}
	for _, name := range []string{"ws_messages.jsonl", "ws_messages.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("PONG\n\n{\"event_type\":\"book\",\"asset_id\":\"1\",\"timestamp\":\"1772366400000\"}\r\nPING\nhello\n[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c collect
		st, err := Import(context.Background(), bytes.NewReader(data), &c, Options{Window: 8})
		if err != nil {
			return
		}
		// A keep-alive line before the input changes nothing but the count.
		var k collect
		kst, err := Import(context.Background(), io.MultiReader(strings.NewReader("PONG\n"), bytes.NewReader(data)), &k, Options{Window: 8})
		if err != nil {
			t.Fatalf("the input imports alone but not after a PONG line: %v", err)
		}
		if strings.Join(k.lines, "") != strings.Join(c.lines, "") || kst.Frames[frameKeepAlive] != st.Frames[frameKeepAlive]+1 {
			t.Fatalf("a PONG line before the input changed the output or was not counted: %v, %v", kst.Frames, st.Frames)
		}
		// Whatever was imported is a valid, ordered recording that parses back.
		for i, e := range c.evs {
			if err := e.Validate(); err != nil {
				t.Fatalf("event %d invalid: %v", i, err)
			}
			if i > 0 && e.Time().Before(c.evs[i-1].Time()) {
				t.Fatalf("event %d out of order", i)
			}
			back, err := recording.ParseLine(bytes.TrimSuffix([]byte(c.lines[i]), []byte("\n")))
			if err != nil {
				t.Fatalf("event %d does not parse back: %v\n%s", i, err, c.lines[i])
			}
			if got := string(recording.AppendLine(nil, back)); got != c.lines[i] {
				t.Fatalf("event %d round trip:\n%s\n%s", i, got, c.lines[i])
			}
		}
	})
}

func TestImportTradeSide(t *testing.T) {
	in := `{"event_type":"last_trade_price","asset_id":"1","price":"0.5","size":"1","side":"BUY","timestamp":"1772366400000"}`
	for _, c := range []struct {
		opt  string
		want exchange.Side
	}{{"", exchange.Buy}, {"taker", exchange.Buy}, {"maker", exchange.Sell}, {"none", ""}} {
		var sink collect
		if _, err := Import(context.Background(), strings.NewReader(in), &sink, Options{TradeSide: c.opt}); err != nil {
			t.Fatal(err)
		}
		if got := sink.evs[0].Trade.TakerSide; got != c.want {
			t.Errorf("TradeSide %q: taker %q, want %q", c.opt, got, c.want)
		}
	}
	if _, err := Import(context.Background(), strings.NewReader(in), &collect{}, Options{TradeSide: "left"}); err == nil {
		t.Error("bad TradeSide accepted")
	}
}

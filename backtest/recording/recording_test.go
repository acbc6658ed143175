package recording

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

func writeRecording(t *testing.T, path string, evs []Event) {
	t.Helper()
	w, err := NewWriter(path, WithSource("test"), WithCreated(fixture.T0))
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

// eventsEqual compares events field by field with decimal equality.
func eventsEqual(t *testing.T, i int, got, want Event) {
	t.Helper()
	a, b := string(AppendLine(nil, got)), string(AppendLine(nil, want))
	if a != b {
		t.Errorf("event %d:\n got %s\nwant %s", i, a, b)
	}
	if !got.Time().Equal(want.Time()) {
		t.Errorf("event %d: time %v, want %v", i, got.Time(), want.Time())
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl.gz")
	want := sampleEvents(t)
	writeRecording(t, path, want)
	h, got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if h != (Header{Format: Format, Version: 1, Created: fixture.T0, Source: "test"}) {
		t.Errorf("header = %+v", h)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		eventsEqual(t, i, got[i], want[i])
	}
	// Decoded values are the same, not only their text.
	b := got[1].Book
	if b.TokenID != "111" || !b.Bids[0].Price.Equal(fixture.Dec("0.5")) || !b.Asks[1].Size.Equal(fixture.Dec("60")) ||
		!b.TickSize.Equal(fixture.Dec("0.01")) || !b.Received.Equal(fixture.Ms(1003).Add(417)) || !b.Exchange.Equal(fixture.Ms(1000)) {
		t.Errorf("book decoded as %+v", b)
	}
	if tr := got[2].Trade; tr.TakerSide != exchange.Sell || !tr.Size.Equal(fixture.Dec("219.217767")) {
		t.Errorf("trade decoded as %+v", tr)
	}
	if got[4].Book.TokenID != "222 \"quoted\" \x01 é" || len(got[4].Book.Bids) != 0 || got[4].Book.Bids == nil {
		t.Errorf("escaped token or empty side decoded as %+v", got[4].Book)
	}
	if m := got[6].Meta; !m.Resolved || !m.Payout.Equal(fixture.Dec("1")) {
		t.Errorf("resolution decoded as %+v", m)
	}
	if m := got[0].Meta; !m.EndDate.Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("end date decoded as %v", m.EndDate)
	}
}

func TestWriterLeavesNothingOnAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl.gz")
	w, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sampleEvents(t) {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(sampleEvents(t)[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Abort = %v, want ErrClosed", err)
	}
	fixture.AssertDirEntries(t, dir)
}

func TestWriterKeepsOldFileUntilCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl.gz")
	evs := sampleEvents(t)
	writeRecording(t, path, evs[:2])
	w, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	// Before Close, the destination still holds the old recording.
	if _, got, err := ReadAll(path); err != nil || len(got) != 2 {
		t.Fatalf("before commit: %d events, %v", len(got), err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, got, err := ReadAll(path); err != nil || len(got) != len(evs) {
		t.Fatalf("after commit: %d events, %v", len(got), err)
	}
	fixture.AssertDirEntries(t, dir, "rec.jsonl.gz")
}

// TestWriterKilled runs a child process that writes part of a recording and
// dies without closing it: the destination must not exist.
func TestWriterKilled(t *testing.T) {
	if path := os.Getenv("BACKTEST_KILLED_WRITER"); path != "" {
		w, err := NewWriter(path)
		if err != nil {
			os.Exit(3)
		}
		for i := 0; i < 1000; i++ {
			for _, e := range sampleEvents(t)[:1] {
				if err := w.Write(e); err != nil {
					os.Exit(4)
				}
			}
		}
		os.Exit(7) // dies mid-recording: no Close, no Abort
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl.gz")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriterKilled$")
	cmd.Env = append(os.Environ(), "BACKTEST_KILLED_WRITER="+path)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("child: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("destination exists after a killed writer: %v", err)
	}
	// Only the writer's temporary file is left, and it is recognisably one.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), ".rec.jsonl.gz.tmp-") {
		t.Errorf("directory holds %v", ents)
	}
}

func TestWriterRejects(t *testing.T) {
	w, err := NewWriter(filepath.Join(t.TempDir(), "r.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Write(BookEvent(&Book{TokenID: "1", Stamp: Stamp{Exchange: fixture.Ms(10)}})); err != nil {
		t.Fatal(err)
	}
	err = w.Write(BookEvent(&Book{TokenID: "1", Stamp: Stamp{Exchange: fixture.Ms(9)}}))
	if !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("out-of-order write = %v", err)
	}
	err = w.Write(TradeEvent(&Trade{TokenID: "1", Stamp: Stamp{Exchange: fixture.Ms(11)}, Price: fixture.Dec("0.5")}))
	if !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("zero-size trade = %v", err)
	}
	if w.Count() != 1 {
		t.Errorf("Count = %d", w.Count())
	}
}

// rawRecording gzips the given lines (each already newline-terminated or not).
func rawRecording(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	if _, err := io.WriteString(gz, text); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const goodHeader = `{"format":"mmbot-recording","version":1,"created":"2026-03-01T12:00:00Z","source":"t"}` + "\n"

func TestReaderErrors(t *testing.T) {
	book := `{"kind":"book","token":"1","ts_ms":1,"bids":[{"price":"0.4","size":"1"}],"asks":[]}` + "\n"
	cases := []struct {
		name     string
		data     []byte
		wantLine int
		wantErr  error
		events   int
	}{
		{"version 2", rawRecording(t, strings.Replace(goodHeader, `"version":1`, `"version":2`, 1)+book), 1, &VersionError{}, 0},
		{"not a recording", rawRecording(t, `{"event_type":"book"}`+"\n"), 1, ErrNotRecording, 0},
		{"empty", rawRecording(t, ""), 1, ErrNotRecording, 0},
		{"garbage header", rawRecording(t, "hello\n"), 1, ErrNotRecording, 0},
		{"truncated last line", rawRecording(t, goodHeader+book+book[:30]), 3, ErrTruncated, 1},
		{"truncated gzip", func() []byte {
			b := rawRecording(t, goodHeader+strings.Repeat(book, 50))
			return b[:len(b)-12]
		}(), 0, ErrTruncated, -1},
		{"unknown kind", rawRecording(t, goodHeader+book+`{"kind":"quote","token":"1","ts_ms":2}`+"\n"), 3, ErrInvalidEvent, 1},
		{"bad json", rawRecording(t, goodHeader+book+book+"{\"kind\":\n"), 4, nil, 2},
		{"unsorted bids", rawRecording(t, goodHeader+`{"kind":"book","token":"1","ts_ms":1,"bids":[{"price":"0.4","size":"1"},{"price":"0.5","size":"1"}]}`+"\n"), 2, ErrInvalidEvent, 0},
		{"plain text ok", []byte(goodHeader + book + "\n" + book), 0, nil, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := readBytes(c.data)
			if c.wantErr == nil && c.wantLine == 0 {
				if err != nil || n != c.events {
					t.Fatalf("read %d events, err %v", n, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read %d events without error", n)
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *LineError", err)
			}
			if c.wantLine != 0 && le.Line != c.wantLine {
				t.Errorf("error at line %d, want %d: %v", le.Line, c.wantLine, err)
			}
			if ve, ok := c.wantErr.(*VersionError); ok {
				if !errors.As(err, &ve) || ve.Got != 2 || !strings.Contains(err.Error(), "unsupported recording version 2") {
					t.Errorf("error %v, want VersionError{2}", err)
				}
			} else if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("error %v, want %v", err, c.wantErr)
			}
			if c.events >= 0 && n != c.events {
				t.Errorf("read %d events before the error, want %d", n, c.events)
			}
		})
	}
}

func readBytes(data []byte) (int, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			if _, again := r.Next(); !reflect.DeepEqual(again, err) {
				return n, fmt.Errorf("error not sticky: %v then %v", err, again)
			}
			return n, err
		}
		n++
	}
}

func TestReaderLongLine(t *testing.T) {
	// A book with enough levels to exceed the bufio buffer (64 KiB).
	var bids []exchange.PriceLevel
	for i := 9999; i > 0; i-- {
		bids = append(bids, exchange.PriceLevel{Price: fixture.Dec(fmt.Sprintf("0.%04d", i)), Size: fixture.Dec("12345.678901")})
	}
	e := BookEvent(&Book{Stamp: Stamp{Exchange: fixture.Ms(1)}, TokenID: "1", Bids: bids, Asks: nil})
	path := filepath.Join(t.TempDir(), "long.gz")
	writeRecording(t, path, []Event{e, e})
	_, got, err := ReadAll(path)
	if err != nil || len(got) != 2 || len(got[1].Book.Bids) != 9999 {
		t.Fatalf("read %d events, %v", len(got), err)
	}
	if n := len(AppendLine(nil, e)); n < 128<<10 {
		t.Fatalf("line only %d bytes; the test needs a line longer than the read buffer", n)
	}
}

var parseLineCases = []struct {
	line string
	ok   bool
}{
	{`{"kind":"book","token":"1","ts_ms":1,"bids":[{"price":"0.4","size":"1"}],"asks":[]}`, true},
	{`{"kind":"book","token":"1","recv_ns":5,"bids":[{"price":0.4,"size":1}]}`, true},
	{`{"kind":"book","token":"1","ts_ms":1,"bids":[{"price":"0.4","size":"-1"}]}`, false},
	{`{"kind":"book","token":"1","ts_ms":1,"asks":[{"price":"0.5","size":"1"},{"price":"0.4","size":"1"}]}`, false},
	{`{"kind":"book","token":"1","ts_ms":1,"asks":[{"price":"0.0000001","size":"1"}]}`, false},
	{`{"kind":"book","ts_ms":1}`, false},
	{`{"kind":"book","token":"1"}`, false},
	{`{"kind":"trade","token":"1","ts_ms":1,"price":"0.5","size":"2","taker":"SELL"}`, true},
	{`{"kind":"trade","token":"1","ts_ms":1,"price":"0.5","size":"2","taker":"sell"}`, false},
	{`{"kind":"trade","token":"1","ts_ms":1,"price":"1e999999999","size":"2"}`, false},
	{`{"kind":"meta","market":"0xm","ts_ms":1,"end_date":"2026-11-03T00:00:00Z"}`, true},
	{`{"kind":"meta","market":"0xm","ts_ms":1,"end_date":"soon"}`, false},
	{`{"kind":"meta","token":"1","ts_ms":1,"payout":"1"}`, false},
	{`{"kind":"meta","token":"1","ts_ms":1,"resolved":true,"payout":"1"}`, true},
	{`{"kind":"quote"}`, false},
	{`{}`, false},
	{`[]`, false},
	{`{"kind":"book","token":"1","ts_ms":1,"bids":[{"price":"0.4","size":"1"}],"future_field":[1,2,3]}`, true},
}

func TestParseLine(t *testing.T) {
	for _, c := range parseLineCases {
		e, err := ParseLine([]byte(c.line))
		if (err == nil) != c.ok {
			t.Errorf("ParseLine(%s) error = %v, want ok=%v", c.line, err, c.ok)
			continue
		}
		if err == nil && e.Validate() != nil {
			t.Errorf("ParseLine(%s) returned an invalid event", c.line)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	for _, c := range parseLineCases {
		f.Add([]byte(c.line))
	}
	for _, e := range sampleEvents(f) {
		f.Add(bytes.TrimSuffix(AppendLine(nil, e), []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseLine(line)
		if err != nil {
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("parsed an invalid event: %v", err)
		}
		// The canonical form parses back to itself.
		out := AppendLine(nil, e)
		e2, err := ParseLine(bytes.TrimSuffix(out, []byte("\n")))
		if err != nil {
			t.Fatalf("canonical line does not parse: %v\n%s", err, out)
		}
		if out2 := AppendLine(nil, e2); !bytes.Equal(out, out2) {
			t.Fatalf("canonical form not stable:\n%s%s", out, out2)
		}
	})
}

// Bytes lags the events by what gzip buffers (it stays 0 for a small
// recording until Close); DataBytes grows with every event and, once the
// file is closed, equals the size of its decompressed content.
func TestWriterByteCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl.gz")
	w, err := NewWriter(path, WithSource("test"), WithCreated(fixture.T0))
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
		if n := w.DataBytes(); n != prev+int64(len(AppendLine(nil, e))) {
			t.Fatalf("event %d: DataBytes %d, want %d + the line", i, n, prev)
		}
		prev = w.DataBytes()
	}
	if w.Bytes() != 0 {
		t.Fatalf("Bytes %d before Close: the test expects gzip to hold a small recording", w.Bytes())
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
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(raw)) != w.DataBytes() {
		t.Errorf("DataBytes %d, decompressed size %d", w.DataBytes(), len(raw))
	}
}

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/recorder"
	"github.com/mmbot/mmbot/backtest/recording"
)

// checkRecording reads a recording back and checks what every recording of
// the simulated exchange must hold: events in time order, metas of every
// token, books of both tokens of every market, trades. It returns the
// number of events of each kind.
func checkRecording(t *testing.T, path, source string, wantMarkets int) (books, trades, metas int) {
	t.Helper()
	r, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if want, _ := recording.FormatForPath(path); r.Header().Source != source || r.Header().Version != int(want) {
		t.Errorf("header %+v, want source %s, version %d", r.Header(), source, want)
	}
	if h := r.Header(); h.Format != recording.Format {
		t.Errorf("header %+v", h)
	}
	var last time.Time
	bookTokens := map[string]map[string]bool{} // market → tokens with a book
	metaTokens := map[string]bool{}
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if e.Time().Before(last) {
			t.Fatalf("line %d: %s before %s", r.Line(), e.Time(), last)
		}
		last = e.Time()
		switch e.Kind {
		case recording.KindBook:
			books++
			if bookTokens[e.Book.Market] == nil {
				bookTokens[e.Book.Market] = map[string]bool{}
			}
			bookTokens[e.Book.Market][e.Book.TokenID] = true
			if e.Book.Exchange.IsZero() || !e.Book.TickSize.IsPositive() {
				t.Errorf("book without exchange time or tick: %+v", e.Book)
			}
		case recording.KindTrade:
			trades++
			if !e.Trade.TakerSide.Valid() || !e.Trade.Price.IsPositive() {
				t.Errorf("trade %+v", e.Trade)
			}
		case recording.KindMeta:
			metas++
			metaTokens[e.Meta.TokenID] = true
		}
	}
	if len(bookTokens) != wantMarkets {
		t.Errorf("books of %d markets, want %d", len(bookTokens), wantMarkets)
	}
	for m, toks := range bookTokens {
		if len(toks) != 2 {
			t.Errorf("market %s: books of %d tokens, want both", m, len(toks))
		}
		for tok := range toks {
			if !metaTokens[tok] {
				t.Errorf("token %s has books but no meta", tok)
			}
		}
	}
	if trades == 0 {
		t.Error("no trade recorded")
	}
	return books, trades, metas
}

// TestRecordCommand records version 2, the default, from the simulated
// exchange.
func TestRecordCommand(t *testing.T) {
	t.Parallel()
	_, urls := startFlowSim(t, 12, 3, nil)
	cfg := paperConfig(t, urls, filepath.Join(t.TempDir(), "unused.db"), "")
	out := filepath.Join(t.TempDir(), "rec.mmrec")
	var stdout, stderr lockedBuffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if err := cmdRecord(e, []string{"-c", cfg, "--out", out, "--duration", "3s", "--interval", "200ms"}); err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	books, trades, metas := checkRecording(t, out, "mmbot record", 2)
	t.Logf("%d books, %d trades, %d metas: %s", books, trades, metas, stdout.String())
	if metas != 4 {
		t.Errorf("%d metas, want one per token (4)", metas)
	}
	if !strings.HasPrefix(stdout.String(), "recorded ") || !strings.Contains(stdout.String(), " to "+out) {
		t.Errorf("stdout %q", stdout.String())
	}
	// The sizes are true: data written (never "0 B"), the file's size.
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String(), " 0 B") || !strings.Contains(stdout.String(), " encoded, ") ||
		!strings.Contains(stdout.String(), " to "+out+" ("+humanBytes(fi.Size())+" compressed, format v2)\n") {
		t.Errorf("stdout %q: want the data's size and the file's size, %s", stdout.String(), humanBytes(fi.Size()))
	}
	if strings.Contains(stdout.String(), "failed reads") {
		t.Errorf("reads failed: %s\n%s", stdout.String(), stderr.String())
	}
}

// TestRecordCommandStopsOnSignal ends a recording the way SIGINT does (the
// command's context ends) and finds a complete, committed file.
func TestRecordCommandStopsOnSignal(t *testing.T) {
	_, urls := startFlowSim(t, 13, 2, nil)
	cfg := paperConfig(t, urls, filepath.Join(t.TempDir(), "unused.db"), "")
	dir := t.TempDir()
	out := filepath.Join(dir, "rec.jsonl.gz")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	done := make(chan error, 1)
	go func() { done <- cmdRecord(e, []string{"-c", cfg, "--out", out, "--interval", "100ms"}) }()
	// Wait until the markets are selected, then "signal": the metas are
	// written at once, the first poll finds the context ended.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), `"recording"`) && time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("record ended early: %v\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the destination exists before the recording is committed: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("record did not stop")
	}
	r, err := recording.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 4 {
		t.Errorf("%d events", n)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".rec.jsonl.gz.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestRecordUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--out is required"},
		{[]string{"--out", "x", "--interval", "0s"}, "--interval"},
		{[]string{"--out", "x", "--duration", "-1s"}, "--duration"},
		{[]string{"--out", "x", "extra"}, "unexpected arguments"},
		{[]string{"--bogus"}, "unknown flag"},
		{[]string{"--out", "x.mmrec", "--format", "v3"}, "want v1 or v2"},
		{[]string{"--out", "x.jsonl.gz", "--format", "v2"}, "needs a name ending in .mmrec"},
	} {
		var stdout, stderr lockedBuffer
		e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		err := cmdRecord(e, tt.args)
		var u *usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want a usage error with %q", tt.args, err, tt.want)
		}
	}
}

func TestProgress(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var w lockedBuffer
		var logged []string
		ticks := make(chan time.Time)
		n := 0
		stop := progressOn(context.Background(), ticks, &w, terminal, func() string { n++; return "line" + string(rune('0'+n)) },
			func(s string) { logged = append(logged, s) })
		ticks <- time.Time{}
		ticks <- time.Time{}
		stop()
		if terminal {
			if got := w.String(); got != "\rrecording: line1   \rrecording: line2   \n" {
				t.Errorf("terminal output %q", got)
			}
		} else if w.String() != "" || strings.Join(logged, "|") != "recording: line1|recording: line2" {
			t.Errorf("log output %q, logged %q", w.String(), logged)
		}
	}
}

func TestProgressLine(t *testing.T) {
	st := recorder.Stats{Events: 12, Books: 8, Trades: 2, Metas: 2}
	for _, c := range []struct {
		bytes int64
		want  string
	}{
		{512, "12 events (8 books, 2 trades, 2 meta), 512 B encoded, 1m5s"},
		{3 << 19, "12 events (8 books, 2 trades, 2 meta), 1.5 MiB encoded, 1m5s"},
		{2048, "12 events (8 books, 2 trades, 2 meta), 2.0 KiB encoded, 1m5s"},
		{5 << 30, "12 events (8 books, 2 trades, 2 meta), 5.0 GiB encoded, 1m5s"},
	} {
		if got := progressLine(st, c.bytes, 2, 65*time.Second+300*time.Millisecond); got != c.want {
			t.Errorf("progressLine = %q, want %q", got, c.want)
		}
	}
	if got := progressLine(st, 512, 1, time.Second); got != "12 events (8 books, 2 trades, 2 meta), 512 B of JSON, 1s" {
		t.Errorf("version 1: %q", got)
	}
}

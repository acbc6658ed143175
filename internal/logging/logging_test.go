package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

var fixed = time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.FixedZone("X", 3600))

const fixedText = "2026-03-04T04:06:07.891Z"

func newBuf(t *testing.T, o Options) (zerolog.Logger, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	o.Out = &buf
	o.Now = func() time.Time { return fixed }
	log, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return log, &buf
}

func TestJSON(t *testing.T) {
	for _, o := range []Options{
		{Format: "json", IsTerminal: true},
		{Format: "auto", IsTerminal: false},
		{Format: "", IsTerminal: false},
		{Format: "JSON"},
	} {
		log, buf := newBuf(t, o)
		log.Info().Str("k", "v").Msg("hello")
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatalf("%+v: not a JSON line: %q", o, buf.String())
		}
		if m["time"] != fixedText || m["level"] != "info" || m["message"] != "hello" || m["k"] != "v" {
			t.Errorf("%+v: got %v", o, m)
		}
		if strings.Count(buf.String(), "\n") != 1 {
			t.Errorf("%+v: want one line, got %q", o, buf.String())
		}
	}
}

func TestConsole(t *testing.T) {
	for _, o := range []Options{
		{Format: "console", IsTerminal: false},
		{Format: "auto", IsTerminal: true},
	} {
		log, buf := newBuf(t, o)
		log.Warn().Str("market", "m1").Msg("slow book")
		out := buf.String()
		if strings.HasPrefix(out, "{") {
			t.Errorf("%+v: JSON on the console: %q", o, out)
		}
		for _, want := range []string{fixedText, "slow book", "market=", "m1", "WRN"} {
			if !strings.Contains(out, want) {
				t.Errorf("%+v: %q lacks %q", o, out, want)
			}
		}
		if hasColor := strings.Contains(out, "\x1b["); hasColor != o.IsTerminal {
			t.Errorf("%+v: colour = %v", o, hasColor)
		}
	}
}

func TestLevel(t *testing.T) {
	for _, tc := range []struct {
		level string
		want  []string // messages that pass
	}{
		{"trace", []string{"t", "d", "i", "w", "e"}},
		{"debug", []string{"d", "i", "w", "e"}},
		{"", []string{"i", "w", "e"}},
		{"Info", []string{"i", "w", "e"}},
		{"warn", []string{"w", "e"}},
		{"error", []string{"e"}},
	} {
		log, buf := newBuf(t, Options{Level: tc.level, Format: "json"})
		log.Trace().Msg("t")
		log.Debug().Msg("d")
		log.Info().Msg("i")
		log.Warn().Msg("w")
		log.Error().Msg("e")
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			got = append(got, m["message"].(string))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("level %q passed %v, want %v", tc.level, got, tc.want)
		}
	}
}

func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want error
		text string
	}{
		{Options{Level: "verbose", Out: os.Stderr}, ErrLevel, `"verbose" (want trace, debug, info, warn or error)`},
		{Options{Level: "fatal", Out: os.Stderr}, ErrLevel, `"fatal"`},
		{Options{Format: "xml", Out: os.Stderr}, ErrFormat, `"xml" (want auto, json or console)`},
		{Options{}, ErrOutput, "no output"},
	} {
		_, err := New(tc.o)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%+v: err = %v, want %v with %q", tc.o, err, tc.want, tc.text)
		}
	}
}

func TestRealClockFormat(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(Options{Out: &buf, Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	log.Info().Msg("x")
	var m struct{ Time string }
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(TimeLayout, m.Time); err != nil || len(m.Time) != len("2006-01-02T15:04:05.000Z") {
		t.Fatalf("time %q: %v", m.Time, err)
	}
	if _, err := time.Parse(time.RFC3339, m.Time); err != nil {
		t.Fatalf("time %q is not RFC 3339: %v", m.Time, err)
	}
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(r) || IsTerminal(w) {
		t.Error("a pipe is not a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(nil) {
		t.Error("a file is not a terminal")
	}
}

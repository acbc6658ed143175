package logging

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/term"
)

// TimeLayout is the layout of the "time" field: RFC 3339 with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Errors for bad options; the returned errors wrap them.
var (
	ErrLevel  = errors.New("logging: unknown level")
	ErrFormat = errors.New("logging: unknown format")
	ErrOutput = errors.New("logging: no output writer")
)

// Options configure New.
type Options struct {
	// Level is trace, debug, info, warn or error (any case); empty is info.
	Level string
	// Format is auto, json or console; empty is auto. Auto means console
	// when IsTerminal, JSON lines otherwise.
	Format string
	// Out receives the log lines.
	Out io.Writer
	// IsTerminal says whether Out is a terminal (see IsTerminal); it picks
	// the auto format and colours on the console.
	IsTerminal bool
	// Now is the clock for the time field; nil is time.Now.
	Now func() time.Time
}

// New returns a logger writing to opts.Out.
func New(opts Options) (zerolog.Logger, error) {
	level, err := ParseLevel(opts.Level)
	if err != nil {
		return zerolog.Nop(), err
	}
	if opts.Out == nil {
		return zerolog.Nop(), ErrOutput
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	console := opts.IsTerminal
	switch strings.ToLower(opts.Format) {
	case "", "auto":
	case "json":
		console = false
	case "console":
		console = true
	default:
		return zerolog.Nop(), fmt.Errorf("%w %q (want auto, json or console)", ErrFormat, opts.Format)
	}
	out := opts.Out
	if console {
		noColor := !opts.IsTerminal
		out = zerolog.ConsoleWriter{
			Out:     opts.Out,
			NoColor: noColor,
			FormatTimestamp: func(v any) string {
				s, _ := v.(string)
				if noColor {
					return s
				}
				return "\x1b[90m" + s + "\x1b[0m"
			},
		}
	}
	return zerolog.New(out).Level(level).Hook(timeHook{now: now}), nil
}

// ParseLevel parses trace, debug, info, warn or error (any case); empty is
// info.
func ParseLevel(s string) (zerolog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace":
		return zerolog.TraceLevel, nil
	case "debug":
		return zerolog.DebugLevel, nil
	case "", "info":
		return zerolog.InfoLevel, nil
	case "warn":
		return zerolog.WarnLevel, nil
	case "error":
		return zerolog.ErrorLevel, nil
	}
	return zerolog.NoLevel, fmt.Errorf("%w %q (want trace, debug, info, warn or error)", ErrLevel, s)
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// timeHook adds the time field to every event.
type timeHook struct{ now func() time.Time }

func (h timeHook) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	e.Str(zerolog.TimestampFieldName, h.now().UTC().Format(TimeLayout))
}

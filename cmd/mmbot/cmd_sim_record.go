package main

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/backtest/recorder"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/scoreboard"
	"github.com/mmbot/mmbot/exchange/sim"
)

// simRecorder records the simulated exchange's own books and trades
// (`mmbot sim --record`). The exchange calls its hooks while it holds its
// lock, so they only convert and queue: the conversion is the scoreboard's
// Tape (the same events its simulated-clock recordings hold), an AsyncSink
// writes from its own goroutine, and nothing here calls back into the
// exchange.
type simRecorder struct {
	path string
	w    *recording.Writer
	q    *recorder.AsyncSink
	tape *scoreboard.Tape
}

func newSimRecorder(path string, format recording.FileFormat) (*simRecorder, error) {
	w, err := recording.NewWriter(path, recording.WithSource("mmbot sim"), recording.WithFormat(format))
	if err != nil {
		return nil, err
	}
	q := recorder.NewAsyncSink(w)
	// a write error is kept by the sink and reported by close
	return &simRecorder{path: path, w: w, q: q, tape: scoreboard.NewTape(func(e recording.Event) { _ = q.Write(e) })}, nil
}

// start begins the recording at time at: each open market's terms and its
// current books, then every change the hooks report. Call it from outside
// the hooks, with the exchange's clock not running (before Start, or on a
// manual clock).
func (r *simRecorder) start(ex *sim.Exchange, at time.Time) { r.tape.Start(ex, at) }

// onBook and onTrade are the exchange's hooks.
func (r *simRecorder) onBook(ev sim.BookEvent)   { r.tape.OnBook(ev) }
func (r *simRecorder) onTrade(ev sim.TradeEvent) { r.tape.OnTrade(ev) }

// close writes what is queued and commits the file; it returns the number
// of events written and skipped. Call it after the exchange has stopped.
func (r *simRecorder) close() (written, skipped int, err error) {
	r.tape.Stop()
	skipped = r.tape.Skipped()
	if err := r.q.Close(); err != nil {
		_ = r.w.Abort()
		return r.q.Written(), skipped, fmt.Errorf("recording %s: %w", r.path, err)
	}
	if err := r.w.Close(); err != nil {
		return r.q.Written(), skipped, err
	}
	return r.w.Count(), skipped, nil
}

// abort discards the recording (an error before the exchange ran).
func (r *simRecorder) abort() {
	r.tape.Stop()
	_ = r.q.Close()
	_ = r.w.Abort()
}

package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/mmbot/mmbot/backtest/recorder"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange/sim"
)

// simRecorder records the simulated exchange's own books and trades
// (`mmbot sim --record`). The exchange calls its hooks while it holds its
// lock, so they only convert and queue: an AsyncSink writes from its own
// goroutine, and nothing here calls back into the exchange.
type simRecorder struct {
	path string
	w    *recording.Writer
	q    *recorder.AsyncSink

	mu      sync.Mutex // the hooks may run on several goroutines
	filter  recording.BookFilter
	last    time.Time
	skipped int
	started bool // hooks before start are not recorded
	done    bool
}

func newSimRecorder(path string, format recording.FileFormat) (*simRecorder, error) {
	w, err := recording.NewWriter(path, recording.WithSource("mmbot sim"), recording.WithFormat(format))
	if err != nil {
		return nil, err
	}
	return &simRecorder{path: path, w: w, q: recorder.NewAsyncSink(w)}, nil
}

// start begins the recording at time at: each open market's terms (one
// meta per token, in the market's token order, with the reward terms) and
// its current books, then every change the hooks report. Call it from
// outside the hooks, with the exchange's clock not running (before Start, or
// on a manual clock).
func (r *simRecorder) start(ex *sim.Exchange, at time.Time) {
	markets := ex.Catalog().Markets
	for i := range markets {
		m := &markets[i]
		if m.Closed {
			continue
		}
		for _, tok := range m.TokenIDs {
			r.queue(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Received: at}, TokenID: tok, Market: m.ConditionID,
				TickSize: m.TickSize, MinOrderSize: m.MinOrderSize, EndDate: m.EndDate, RewardMaxSpread: m.Rewards.MaxSpread,
				RewardMinSize: m.Rewards.MinSize, RewardDailyRate: m.Rewards.DailyRate}))
		}
	}
	for i := range markets {
		m := &markets[i]
		if m.Closed {
			continue
		}
		var ev sim.BookEvent
		ev.Time, ev.Market = at, m.ConditionID
		ok := true
		for j, tok := range m.TokenIDs {
			b, err := ex.Book(tok)
			if err != nil {
				ok = false
				break
			}
			ev.Books[j] = b
		}
		if ok {
			r.books(ev)
		}
	}
	r.mu.Lock()
	r.started = true
	r.mu.Unlock()
}

// onBook is the exchange's OnBook hook: the market's two books, each
// written when it changed.
func (r *simRecorder) onBook(ev sim.BookEvent) {
	if r.recording() {
		r.books(ev)
	}
}

func (r *simRecorder) books(ev sim.BookEvent) {
	for i := range ev.Books {
		b := &ev.Books[i]
		bk := &recording.Book{Stamp: recording.Stamp{Exchange: ev.Time, Received: ev.Time}, TokenID: b.AssetID, Market: ev.Market,
			Bids: b.Bids, Asks: b.Asks, TickSize: b.TickSize, MinOrderSize: b.MinOrderSize}
		r.mu.Lock()
		changed := r.filter.Changed(bk, b.Hash)
		r.mu.Unlock()
		if changed {
			r.queue(recording.BookEvent(bk))
		}
	}
}

// onTrade is the exchange's OnTrade hook.
func (r *simRecorder) onTrade(ev sim.TradeEvent) {
	if !r.recording() {
		return
	}
	r.queue(recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: ev.Time, Received: ev.Time}, TokenID: ev.Token,
		Market: ev.Market, Price: ev.Price, Size: ev.Size, TakerSide: ev.Side}))
}

func (r *simRecorder) recording() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started && !r.done
}

// queue stamps e no earlier than the previous event (the wall clock may
// step back), skips what the format cannot hold and queues the rest.
func (r *simRecorder) queue(e recording.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	var st *recording.Stamp
	switch e.Kind {
	case recording.KindBook:
		st = &e.Book.Stamp
	case recording.KindTrade:
		st = &e.Trade.Stamp
	case recording.KindMeta:
		st = &e.Meta.Stamp
	}
	if st.Received.Before(r.last) {
		st.Received = r.last
	}
	if err := e.Validate(); err != nil {
		r.skipped++
		return
	}
	r.last = st.Received
	_ = r.q.Write(e) // a write error is kept by the sink and reported by close
}

// close writes what is queued and commits the file; it returns the number
// of events written and skipped. Call it after the exchange has stopped.
func (r *simRecorder) close() (written, skipped int, err error) {
	r.mu.Lock()
	r.done = true
	skipped = r.skipped
	r.mu.Unlock()
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
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
	_ = r.q.Close()
	_ = r.w.Abort()
}

package replay

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
)

// failingSource yields n events, then err.
type failingSource struct {
	evs []recording.Event
	i   int
	err error
}

func (f *failingSource) Next() (recording.Event, error) {
	if f.i >= len(f.evs) {
		return recording.Event{}, f.err
	}
	f.i++
	return f.evs[f.i-1], nil
}

func TestPrefetchKeepsOrderAndError(t *testing.T) {
	evs := synthetic.Events(t, synthetic.Config{Seed: 1, Duration: time.Minute, Books: 5, Levels: 2, Trades: 1, Vol: 0.5})
	broken := errors.New("disk on fire")
	for _, tc := range []struct {
		batch, depth int
		err          error
	}{{0, 0, io.EOF}, {1, 1, io.EOF}, {7, 2, broken}, {1000, 3, broken}} {
		p := Prefetch(&failingSource{evs: evs, err: tc.err}, tc.batch, tc.depth)
		for i := range evs {
			e, err := p.Next()
			if err != nil {
				t.Fatalf("batch %d: event %d: %v", tc.batch, i, err)
			}
			if e.Book != evs[i].Book || e.Trade != evs[i].Trade || e.Meta != evs[i].Meta {
				t.Fatalf("batch %d: event %d out of order", tc.batch, i)
			}
		}
		for k := 0; k < 2; k++ {
			if _, err := p.Next(); !errors.Is(err, tc.err) {
				t.Errorf("batch %d: after the last event: %v, want %v", tc.batch, err, tc.err)
			}
		}
		p.Close()
		p.Close()
	}
}

func TestPrefetchCloseEarly(t *testing.T) {
	evs := synthetic.Events(t, synthetic.Config{Seed: 1, Duration: 10 * time.Minute, Books: 5, Levels: 2, Trades: 1, Vol: 0.5})
	p := Prefetch(&SliceSource{Events: evs}, 16, 2)
	if _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	p.Close() // the goroutine is blocked on a full channel: Close must not hang
}

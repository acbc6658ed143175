package replay

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/report"
	"github.com/mmbot/mmbot/backtest/sweep"
)

// countingSource counts the events read from a Source: how many times a
// recording is decoded.
type countingSource struct {
	src Source
	mu  sync.Mutex
	n   int
}

func (c *countingSource) Next() (recording.Event, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.src.Next()
}

// TestBroadcastEveryReaderGetsEveryEvent reads one source through several
// Readers at random speeds, with small batches and window: each gets every
// event in order, then the source's end (a clean end or its error); a
// Reader closed early holds nobody back.
func TestBroadcastEveryReaderGetsEveryEvent(t *testing.T) {
	evs := synthetic.Events(t, synthetic.Config{Seed: 2, Duration: 2 * time.Minute, Books: 5, Levels: 2, Trades: 1, Vol: 0.5})
	broken := errors.New("disk on fire")
	for _, tc := range []struct {
		n, batch, depth, parallel int
		err                       error
	}{{1, 0, 0, 0, io.EOF}, {4, 1, 1, 1, io.EOF}, {5, 7, 2, 2, broken}, {3, 1000, 3, 3, broken}} {
		src := &countingSource{src: &failingSource{evs: evs, err: tc.err}}
		b, err := NewBroadcast(src, tc.n+1, tc.batch, tc.depth, tc.parallel)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, tc.n)
		for k := range tc.n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := b.Reader(k)
				defer r.Close()
				rng := rand.New(rand.NewPCG(uint64(k), 1))
				for i := range evs {
					e, err := r.Next()
					if err != nil {
						errs[k] = err
						return
					}
					if e.Book != evs[i].Book || e.Trade != evs[i].Trade || e.Meta != evs[i].Meta {
						errs[k] = errors.New("out of order")
						return
					}
					if rng.IntN(50) == 0 {
						time.Sleep(time.Duration(rng.IntN(100)) * time.Microsecond)
					}
				}
				for range 2 {
					if _, err := r.Next(); !errors.Is(err, tc.err) {
						errs[k] = err
					}
				}
			}()
		}
		// The last Reader reads a little and leaves.
		last := b.Reader(tc.n)
		if _, err := last.Next(); err != nil {
			t.Fatal(err)
		}
		last.Close()
		wg.Wait()
		b.Close()
		b.Close()
		for k, err := range errs {
			if err != nil {
				t.Fatalf("n %d batch %d: reader %d: %v", tc.n, tc.batch, k, err)
			}
		}
		if src.n != len(evs)+1 {
			t.Errorf("n %d batch %d: the source was read %d times for %d events: want one pass", tc.n, tc.batch, src.n, len(evs))
		}
	}
}

// TestBroadcastCloseEarly: closing the Broadcast while Readers wait ends
// them with an error, and every Reader closed stops the reading.
func TestBroadcastCloseEarly(t *testing.T) {
	evs := synthetic.Events(t, synthetic.Config{Seed: 1, Duration: 10 * time.Minute, Books: 5, Levels: 2, Trades: 1, Vol: 0.5})
	b, err := NewBroadcast(&SliceSource{Events: evs}, 2, 16, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	r0 := b.Reader(0)
	if _, err := r0.Next(); err != nil {
		t.Fatal(err)
	}
	b.Close() // r1 never read: the window is full, the goroutine waits; Close ends it
	for {
		if _, err := r0.Next(); err != nil {
			break
		}
	}
	r0.Close()
	b.Reader(1).Close()

	b, _ = NewBroadcast(&SliceSource{Events: evs}, 2, 16, 2, 1)
	b.Reader(0).Close()
	b.Reader(1).Close()
	done := make(chan struct{})
	go func() { b.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return once every Reader was closed")
	}
}

// TestBroadcastSweep runs a sweep over a recording file twice: each
// combination reading the file itself, and all of them reading one
// Broadcast of it, at once, two at a time. The sweep's table, CSV and JSON
// are byte for byte the same, and the broadcast decoded the file once.
func TestBroadcastSweep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.mmrec")
	events := synthetic.Write(t, path, synthetic.Config{Seed: 5, Duration: 8 * time.Minute, Books: 5, Levels: 6, Trades: 1, Informed: 0.3, Vol: 0.6})
	params := []sweep.Param{{Key: "offset", Values: []string{"0.01", "0.02"}}, {Key: "levels", Values: []string{"1", "2", "3"}}}
	combos, err := sweep.Grid(params)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (*recording.Reader, error) {
		rd, err := recording.Open(path)
		if err != nil {
			return nil, err
		}
		rd.FixedLevelsOnly()
		return rd, nil
	}
	render := func(rows []sweep.Row) []byte {
		var out bytes.Buffer
		keys := []string{"offset", "levels"}
		if err := report.WriteSweepTable(&out, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteSweepCSV(&out, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteSweepJSON(&out, rows); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	var decodings atomic.Int32
	rows, err := sweep.Run(context.Background(), combos, 2, sweepFrom(func(sweep.Combo) (Source, func(), error) {
		rd, err := open()
		if err != nil {
			return nil, nil, err
		}
		decodings.Add(1)
		return rd, func() { rd.Close() }, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	separate := render(rows)

	rd, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	src := &countingSource{src: rd}
	b, err := NewBroadcast(src, len(combos), 64, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	rows, err = sweep.Run(context.Background(), combos, len(combos), sweepFrom(func(c sweep.Combo) (Source, func(), error) {
		r := b.Reader(c.Index)
		return r, r.Close, nil
	}))
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	if shared := render(rows); !bytes.Equal(separate, shared) {
		t.Fatalf("the sweep over one broadcast differs:\n%s\n---\n%s", separate, shared)
	}
	if src.n != events+1 || int(decodings.Load()) != len(combos) {
		t.Errorf("the broadcast read %d events (%d in the recording), the separate runs decoded %d times", src.n, events, decodings.Load())
	}
}

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/backtest/sweep"
)

// TestRunSweepDecodesOnce runs a sweep's combinations over a recording and
// counts the bytes read from the file: one pass for every combination
// together, each of which still reads every event (as one run alone
// does), two at a time; a shard with no combination reads nothing.
func TestRunSweepDecodesOnce(t *testing.T) {
	t.Parallel()
	rec := filepath.Join(t.TempDir(), "rec.jsonl.gz")
	writeBtRecording(t, rec)
	st, err := os.Stat(rec)
	if err != nil {
		t.Fatal(err)
	}
	count := func(src replay.Source) (int, error) {
		n := 0
		for {
			_, err := src.Next()
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			n++
		}
	}
	alone := newBtProgress(io.Discard, false, st.Size())
	defer alone.stop()
	cast, err := openBroadcast(rec, alone, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := count(cast.Reader(0))
	cast.Close()
	if err != nil || want == 0 {
		t.Fatalf("one reader: %d events, %v", want, err)
	}

	combos, err := sweep.Grid([]sweep.Param{{Key: "offset", Values: []string{"0.01", "0.02", "0.03"}}, {Key: "levels", Values: []string{"1", "2", "3", "4"}}})
	if err != nil {
		t.Fatal(err)
	}
	prog := newBtProgress(io.Discard, false, st.Size())
	defer prog.stop()
	got := make([]int, len(combos))
	rows, err := runSweep(context.Background(), combos, 2, rec, prog, func(_ context.Context, c sweep.Combo, src replay.Source) (*accounting.Results, error) {
		n, err := count(src)
		got[c.Index] = n
		return &accounting.Results{}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if r.Err != nil || got[i] != want {
			t.Errorf("combination %d: %d events (%v), want %d", i, got[i], r.Err, want)
		}
	}
	if n := prog.read.Load(); n != st.Size() {
		t.Errorf("the sweep read %d bytes of a %d-byte recording: want one pass", n, st.Size())
	}

	// More combinations than share one decoding: one pass per group of
	// sweepShare, every combination still reads every event, in order.
	big, err := sweep.Grid([]sweep.Param{{Key: "offset", Values: []string{"0.01", "0.02", "0.03", "0.04", "0.05"}}, {Key: "levels", Values: []string{"1", "2", "3", "4", "5", "6"}}})
	if err != nil {
		t.Fatal(err)
	}
	many := newBtProgress(io.Discard, false, st.Size())
	defer many.stop()
	seen := make([]int, len(big))
	rows, err = runSweep(context.Background(), big, 2, rec, many, func(_ context.Context, c sweep.Combo, src replay.Source) (*accounting.Results, error) {
		n, err := count(src)
		seen[c.Index] = n
		return &accounting.Results{}, err
	})
	if err != nil || len(rows) != len(big) {
		t.Fatalf("%d combinations: %d rows, %v", len(big), len(rows), err)
	}
	groups := (len(big) + sweepShare - 1) / sweepShare
	for i, r := range rows {
		if r.Combo.Index != i || r.Err != nil || seen[i] != want {
			t.Errorf("row %d: combination %d, %d events (%v), want %d", i, r.Combo.Index, seen[i], r.Err, want)
		}
	}
	if n := many.read.Load(); n != int64(groups)*st.Size() {
		t.Errorf("%d combinations read %d bytes, want %d passes of %d", len(big), n, groups, st.Size())
	}

	empty := newBtProgress(io.Discard, false, st.Size())
	defer empty.stop()
	if rows, err := runSweep(context.Background(), nil, 2, rec, empty, nil); err != nil || len(rows) != 0 || empty.read.Load() != 0 {
		t.Errorf("no combination: %d rows, %v, %d bytes read", len(rows), err, empty.read.Load())
	}
}

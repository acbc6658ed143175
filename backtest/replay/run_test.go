package replay

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/report"
)

// renderAll renders the three reports of r.
func renderAll(tb testing.TB, r *accounting.Results) (summary, csv, html []byte) {
	tb.Helper()
	var s, c, h bytes.Buffer
	if err := report.WriteSummary(&s, r); err != nil {
		tb.Fatal(err)
	}
	if err := report.WriteCSV(&c, r); err != nil {
		tb.Fatal(err)
	}
	if err := report.WriteHTML(&h, r); err != nil {
		tb.Fatal(err)
	}
	return s.Bytes(), c.Bytes(), h.Bytes()
}

// TestRunDeterministic replays the same recording twice with random
// latencies: the reports are byte-identical. It also replays it from a
// file: decoding (with the decoder's Fixed levels) gives the same run.
func TestRunDeterministic(t *testing.T) {
	c := synthetic.Config{Seed: 3, Duration: 15 * time.Minute, Books: 5, Levels: 8, Trades: 1, Informed: 0.3, Vol: 0.5}
	evs := synthetic.Events(t, c)
	cfg := benchRunConfig(t)
	cfg.Replay.Matcher = fillmodel.MatcherConfig{Seed: 7, Latency: fillmodel.Latency{Order: fillmodel.Uniform(20*time.Millisecond, 80*time.Millisecond),
		Cancel: fillmodel.LogNormal(40*time.Millisecond, 0.5), Data: fillmodel.Uniform(5*time.Millisecond, 50*time.Millisecond)}}
	run := func(src Source) *accounting.Results {
		// Each run needs fresh strategy state: the model and checker are
		// rebuilt.
		fresh := benchRunConfig(t)
		fresh.Replay = cfg.Replay
		r, err := Run(context.Background(), src, fresh)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := run(&SliceSource{Events: evs})
	b := run(&SliceSource{Events: evs})
	path := filepath.Join(t.TempDir(), "rec.jsonl.gz")
	synthetic.Write(t, path, c)
	rd, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	f := run(rd)

	sa, ca, ha := renderAll(t, a)
	for name, other := range map[string]*accounting.Results{"second run": b, "from file": f} {
		so, co, ho := renderAll(t, other)
		if !bytes.Equal(sa, so) || !bytes.Equal(ca, co) || !bytes.Equal(ha, ho) {
			t.Errorf("%s differs from the first run:\n%s\n---\n%s", name, sa, so)
		}
	}
	// The run did trade: orders, cancels, fills, quotes in the series.
	if a.Total.OrdersSent == 0 || a.Total.CancelsSent == 0 || a.Total.Fills == 0 {
		t.Fatalf("orders %d, cancels %d, fills %d: the strategy did not trade", a.Total.OrdersSent, a.Total.CancelsSent, a.Total.Fills)
	}
	quoted := false
	for _, row := range a.Series {
		quoted = quoted || row.OurBid > 0
	}
	if !quoted {
		t.Error("no quote in the series")
	}
	if !bytes.Contains(sa, []byte("uniform:20ms-80ms")) || !bytes.Contains(ha, []byte("fill mode: queue")) {
		t.Errorf("the reports do not state the latency and fill mode:\n%s", sa)
	}
}

func TestRunProgress(t *testing.T) {
	evs := synthetic.Events(t, synthetic.Config{Seed: 1, Duration: 2 * time.Minute, Books: 5, Levels: 3, Trades: 1, Vol: 0.5})
	cfg := benchRunConfig(t)
	var calls []int64
	cfg.Replay.ProgressEvery = 100
	cfg.Replay.OnProgress = func(n int64) { calls = append(calls, n) }
	if _, err := Run(context.Background(), &SliceSource{Events: evs}, cfg); err != nil {
		t.Fatal(err)
	}
	if want := len(evs) / 100; len(calls) != want || calls[0] != 100 || calls[len(calls)-1] != int64(want*100) {
		t.Errorf("progress calls %v, want %d calls every 100 events", calls, want)
	}
}

func TestRunCancelled(t *testing.T) {
	evs := synthetic.Events(t, synthetic.Config{Seed: 1, Duration: 2 * time.Minute, Books: 5, Levels: 3, Trades: 1, Vol: 0.5})
	cfg := benchRunConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Replay.ProgressEvery = 50
	cfg.Replay.OnProgress = func(int64) { cancel() }
	if _, err := Run(ctx, &SliceSource{Events: evs}, cfg); err != context.Canceled {
		t.Errorf("cancelled run: %v, want context.Canceled", err)
	}
}

package replay

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
)

// heapPeak is the largest live heap seen at samples (after a GC).
type heapPeak struct {
	inuse, alloc uint64
}

// replayHeap replays the recording at path through the quoting loop and
// samples the live heap every `every` events.
func replayHeap(tb testing.TB, path string, every int64) (heapPeak, *accounting.Results) {
	tb.Helper()
	return replayHeapAs(tb, path, every, false)
}

// replayHeapAs is replayHeap; with fixedOnly, it reads as mmbot backtest
// does: Fixed levels only, prefetched.
func replayHeapAs(tb testing.TB, path string, every int64, fixedOnly bool) (heapPeak, *accounting.Results) {
	tb.Helper()
	cfg := benchRunConfig(tb)
	var peak heapPeak
	var ms runtime.MemStats
	sample := func(int64) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak.inuse = max(peak.inuse, ms.HeapInuse)
		peak.alloc = max(peak.alloc, ms.HeapAlloc)
	}
	cfg.Replay.ProgressEvery, cfg.Replay.OnProgress = every, sample
	rd, err := recording.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer rd.Close()
	var src Source = rd
	if fixedOnly {
		rd.FixedLevelsOnly()
		p := Prefetch(rd, 0, 0)
		defer p.Close()
		src = p
	}
	res, err := Run(context.Background(), src, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return peak, res
}

// memBooks is a market of 10 book updates a second per token, 10 levels a
// side, one trade a second.
func memBooks(d time.Duration) synthetic.Config {
	return synthetic.Config{Seed: 4, Duration: d, Books: 10, Levels: 10, Trades: 1, Informed: 0.3, Vol: 0.5}
}

// BenchmarkReplayHeap reports the peak live heap (HeapInuse and HeapAlloc
// after a GC) while replaying, with the quoting loop, a recording of 10
// minutes and one of 100 minutes: the replay streams, so the two stay close
// (the results keep one row per minute and token and one record per fill,
// which is all that grows).
func BenchmarkReplayHeap(b *testing.B) {
	dir := b.TempDir()
	var peaks [2]heapPeak
	var events [2]int
	var paths [2]string
	for i, d := range []time.Duration{10 * time.Minute, 100 * time.Minute} {
		paths[i] = filepath.Join(dir, d.String()+".jsonl.gz")
		events[i] = synthetic.Write(b, paths[i], memBooks(d))
	}
	b.ResetTimer()
	for j := 0; j < b.N; j++ {
		for i, path := range paths {
			p, _ := replayHeap(b, path, 5000)
			peaks[i].inuse = max(peaks[i].inuse, p.inuse)
			peaks[i].alloc = max(peaks[i].alloc, p.alloc)
		}
	}
	b.ReportMetric(float64(events[0]), "events-1x")
	b.ReportMetric(float64(events[1]), "events-10x")
	b.ReportMetric(float64(peaks[0].inuse)/(1<<20), "inuseMiB-1x")
	b.ReportMetric(float64(peaks[1].inuse)/(1<<20), "inuseMiB-10x")
	b.ReportMetric(float64(peaks[0].alloc)/(1<<20), "allocMiB-1x")
	b.ReportMetric(float64(peaks[1].alloc)/(1<<20), "allocMiB-10x")
}

package recording_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
)

// peakHeap reads the recording and returns the largest live heap
// (HeapInuse after a GC) seen at samples every `every` events, and the
// number of events.
func peakHeap(tb testing.TB, path string, every int) (peak uint64, n int) {
	tb.Helper()
	r, err := recording.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var ms runtime.MemStats
	for _, err := range r.All() {
		if err != nil {
			tb.Fatal(err)
		}
		n++
		if n%every == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	return peak, n
}

// TestReaderMemoryFlat reads a recording and one ten times longer: the live
// heap while reading must not grow with the length.
func TestReaderMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 55,000 events")
	}
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.gz"), filepath.Join(dir, "large.gz")
	synthetic.WriteSimple(t, small, 5_000)
	synthetic.WriteSimple(t, large, 50_000)
	ps, ns := peakHeap(t, small, 1000)
	pl, nl := peakHeap(t, large, 1000)
	if ns != 5_000 || nl != 50_000 {
		t.Fatalf("read %d and %d events", ns, nl)
	}
	t.Logf("peak live heap: %d KiB for 5k events, %d KiB for 50k", ps>>10, pl>>10)
	// Growth proportional to length would add megabytes (each event is
	// about 1.5 KiB decoded); allow 1 MiB of noise.
	if pl > ps+1<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB with a 10x longer recording", ps>>10, pl>>10)
	}
}

// BenchmarkReader measures decoding speed (events/s) of a recording of
// book snapshots (20 levels a side) and trades.
func BenchmarkReader(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.gz")
	const n = 20_000
	synthetic.WriteSimple(b, path, n)
	b.ReportAllocs()
	b.ResetTimer()
	events := 0
	for i := 0; i < b.N; i++ {
		r, err := recording.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		_ = r.Close()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReaderHeap reports the peak live heap while reading recordings of
// 20,000 and 200,000 events (10x): the two numbers should be the same.
func BenchmarkReaderHeap(b *testing.B) {
	dir := b.TempDir()
	var peaks [2]uint64
	for i, n := range []int{20_000, 200_000} {
		path := filepath.Join(dir, fmt.Sprint(n))
		synthetic.WriteSimple(b, path, n)
		b.ResetTimer()
		for j := 0; j < b.N; j++ {
			p, _ := peakHeap(b, path, 5000)
			peaks[i] = max(peaks[i], p)
		}
		b.StopTimer()
	}
	b.ReportMetric(float64(peaks[0])/(1<<20), "heapMiB-20k")
	b.ReportMetric(float64(peaks[1])/(1<<20), "heapMiB-200k")
}

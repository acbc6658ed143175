package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
)

// BenchmarkReplayFileV2 is BenchmarkReplayFile from a version 2 file.
func BenchmarkReplayFileV2(b *testing.B) {
	benchReplayFile(b, "rec.mmrec", false)
}

// BenchmarkReplayFileV2Prefetch decodes on its own goroutine, as mmbot
// backtest does.
func BenchmarkReplayFileV2Prefetch(b *testing.B) {
	benchReplayFile(b, "rec.mmrec", true)
}

func benchReplayFile(b *testing.B, name string, prefetch bool) {
	path := filepath.Join(b.TempDir(), name)
	n := synthetic.Write(b, path, synthetic.DenseBooks(5*time.Minute))
	cfg := benchRunConfig(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := recording.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r.FixedLevelsOnly() // as mmbot backtest reads
		var src Source = r
		var p *Prefetcher
		if prefetch {
			p = Prefetch(r, 0, 0)
			src = p
		}
		if _, err := Run(context.Background(), src, cfg); err != nil {
			b.Fatal(err)
		}
		if p != nil {
			p.Close()
		}
		_ = r.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/float64(n), "file-bytes/event")
	}
}

package recording_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
)

var (
	largeOut    = flag.String("large-out", "", "BenchmarkLargeRecording: write the recording to this `path` (.mmrec or .jsonl.gz), and bench.toml beside it")
	largeEvents = flag.Int("large-events", 10_000_000, "BenchmarkLargeRecording: at least this many events")
)

// largeConfig replays the synthetic market as backtest/replay's benchmarks
// do: two bands a side, 1 s cycles.
const largeConfig = `# written by BenchmarkLargeRecording (backtest/recording)
[strategy]
model = "bands"
cycle = "1s"

[strategy.bands]
levels = [
  { offset = "0.01", size = "10" },
  { offset = "0.02", size = "20" },
]

[risk]
max_position = "300"
`

// BenchmarkLargeRecording is the generator of the large run in
// docs/backtesting.md ("Performance"), a benchmark command rather than a
// test: it writes a recording of a busy market (synthetic.DenseBooks: 50
// books a second per token of 20 levels a side, 2 trades a second) of at
// least -large-events events to -large-out, streaming (the generator and
// the Writer hold one event at a time), and a configuration for mmbot
// backtest beside it. Without -large-out it does nothing:
//
//	go test ./backtest/recording -run '^$' -bench LargeRecording -benchtime 1x -large-out /tmp/big/big.mmrec
//	go build -o /tmp/mmbot ./cmd/mmbot
//	/usr/bin/time -v /tmp/mmbot backtest -c /tmp/big/bench.toml --data /tmp/big/big.mmrec
func BenchmarkLargeRecording(b *testing.B) {
	if *largeOut == "" {
		b.Skip("writes a large recording only when -large-out names it")
	}
	if err := os.MkdirAll(filepath.Dir(*largeOut), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(*largeOut), "bench.toml"), []byte(largeConfig), 0o644); err != nil {
		b.Fatal(err)
	}
	c := synthetic.DenseBooks(0)
	perSecond := float64(2*c.Books) + c.Trades
	c.Duration = time.Duration(float64(*largeEvents)/perSecond*1.002) * time.Second
	n := 0
	for i := 0; i < b.N; i++ {
		n = synthetic.Write(b, *largeOut, c)
	}
	if n < *largeEvents {
		b.Fatalf("wrote %d events, fewer than %d", n, *largeEvents)
	}
	fi, err := os.Stat(*largeOut)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n), "events")
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(fi.Size()), "file-bytes")
	b.ReportMetric(float64(fi.Size())/float64(n), "file-bytes/event")
}

package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// benchRunConfig quotes the test market with two bands a side, 1 s cycles
// and realistic latencies.
func benchRunConfig(tb testing.TB) RunConfig {
	cfg, err := testRunConfig()
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

func testRunConfig() (RunConfig, error) {
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.01, 0.02}, Sizes: []float64{10, 20}})
	if err != nil {
		return RunConfig{}, err
	}
	chk, err := risk.NewChecker(risk.Limits{})
	if err != nil {
		return RunConfig{}, err
	}
	return RunConfig{
		Loop: loop.Config{Params: loop.Params{Model: model, Checker: chk}, Cycle: time.Second, TapeLimit: 200,
			Estimators: strategy.DefaultEstimatorParams()},
		Replay: Config{Markets: []strategy.Market{synthetic.Market()}, Matcher: fillmodel.MatcherConfig{Latency: fillmodel.Latency{
			Order: fillmodel.Constant(50 * time.Millisecond), Cancel: fillmodel.Constant(50 * time.Millisecond), Data: fillmodel.Constant(20 * time.Millisecond)}}},
		Log: zerolog.Nop(),
	}, nil
}

// BenchmarkReplay measures the replay engine: events already decoded (as a
// Reader decodes them) through the Matchers, the Accumulator and the
// strategy loop quoting every second.
func BenchmarkReplay(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.jsonl.gz")
	synthetic.Write(b, path, synthetic.DenseBooks(10*time.Minute))
	_, evs, err := recording.ReadAll(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg := benchRunConfig(b)
	b.ReportAllocs()
	b.ResetTimer()
	var n int64
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), &SliceSource{Events: evs}, cfg); err != nil {
			b.Fatal(err)
		}
		n += int64(len(evs))
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}

// BenchmarkReplayFile adds reading the recording: gzip, line decoding.
func BenchmarkReplayFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.jsonl.gz")
	n := synthetic.Write(b, path, synthetic.DenseBooks(5*time.Minute))
	cfg := benchRunConfig(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := recording.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(context.Background(), r, cfg); err != nil {
			b.Fatal(err)
		}
		_ = r.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/float64(n), "file-bytes/event")
	}
}

// BenchmarkReplayFilePrefetch is BenchmarkReplayFile with the decoding on
// its own goroutine (Prefetch).
func BenchmarkReplayFilePrefetch(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.jsonl.gz")
	n := synthetic.Write(b, path, synthetic.DenseBooks(5*time.Minute))
	cfg := benchRunConfig(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := recording.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p := Prefetch(r, 0, 0)
		if _, err := Run(context.Background(), p, cfg); err != nil {
			b.Fatal(err)
		}
		p.Close()
		_ = r.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReplaySparse is a quiet market (5 book updates a second per
// token, 10 levels, one trade a second): the loop's cycle (one a simulated
// second) dominates, so it reports the cost per simulated second too.
func BenchmarkReplaySparse(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.jsonl.gz")
	const d = 20 * time.Minute
	synthetic.Write(b, path, synthetic.Config{Seed: 1, Duration: d, Books: 5, Levels: 10, Trades: 1, Informed: 0.3, Vol: 0.5})
	_, evs, err := recording.ReadAll(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg := benchRunConfig(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), &SliceSource{Events: evs}, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs)*b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/d.Seconds(), "ns/sim-second")
}

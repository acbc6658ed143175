package recording_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// replayConfig is backtest/replay's benchRunConfig: two bands a side, 1 s
// cycles, latencies 50/50/20 ms.
func replayConfig(tb testing.TB) replay.RunConfig {
	tb.Helper()
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.01, 0.02}, Sizes: []float64{10, 20}})
	if err != nil {
		tb.Fatal(err)
	}
	chk, err := risk.NewChecker(risk.Limits{})
	if err != nil {
		tb.Fatal(err)
	}
	return replay.RunConfig{
		Loop: loop.Config{Params: loop.Params{Model: model, Checker: chk}, Cycle: time.Second, TapeLimit: 200,
			Estimators: strategy.DefaultEstimatorParams()},
		Replay: replay.Config{Markets: []strategy.Market{synthetic.Market()}, Matcher: fillmodel.MatcherConfig{Latency: fillmodel.Latency{
			Order: fillmodel.Constant(50 * time.Millisecond), Cancel: fillmodel.Constant(50 * time.Millisecond), Data: fillmodel.Constant(20 * time.Millisecond)}}},
		Log: zerolog.Nop(),
	}
}

// stage runs one stage of reading as a sub-benchmark: run returns the
// events it went through; the rate of the last round is kept in rates.
func stage(b *testing.B, rates map[string]float64, name string, run func(b *testing.B) int) {
	b.Run(name, func(b *testing.B) {
		runtime.GC()
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for i := 0; i < b.N; i++ {
			n += run(b)
		}
		r := float64(n) / b.Elapsed().Seconds()
		b.ReportMetric(r, "events/s")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
		rates[name] = r
	})
}

// replayFile replays the recording at path from the file, with Prefetch
// or on one goroutine.
func replayFile(b *testing.B, path string, cfg replay.RunConfig, prefetch bool) {
	r, err := recording.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var src replay.Source = r
	r.FixedLevelsOnly() // as mmbot backtest reads
	if prefetch {
		p := replay.Prefetch(r, 0, 0)
		defer p.Close()
		src = p
	}
	if _, err := replay.Run(context.Background(), src, cfg); err != nil {
		b.Fatal(err)
	}
}

func mustBlocks(b *testing.B, path string) *recording.Blocks {
	bs, err := recording.ReadBlocks(path)
	if err != nil {
		b.Fatal(err)
	}
	return bs
}

// BenchmarkStages measures each stage of reading the same recording of a
// busy market (synthetic.DenseBooks: 5 minutes, 50 books a second per
// token of 20 levels a side, 2 trades a second; 30,600 events) in both
// formats, with the floors in the same run, and logs the ratios:
//
//	v1/gunzip          gzip inflation alone into a discard (zcat's floor)
//	v1/read            the Reader: gzip and the JSON line decoder
//	v1/replay-prefetch the replay with the strategy, from the file
//	v2/unzstd          zstd of the blocks alone into a discard
//	v2/decode          decoding alone, from the decompressed blocks in memory
//	v2/decode-fixed    the same with Fixed levels only (FixedLevelsOnly)
//	v2/read            the Reader: framing, checksums, zstd, decoding
//	v2/read-fixed      the same with Fixed levels only (as mmbot backtest)
//	v2/scan            the Reader with SkipLevels (mmbot backtest's market scan)
//	v2/replay          the replay with the strategy, from the file, one goroutine
//	v2/replay-prefetch the same, decoding on its own goroutine (mmbot backtest)
//	memory/replay      the replay of events already decoded (BenchmarkReplay)
func BenchmarkStages(b *testing.B) {
	dir := b.TempDir()
	v1, v2 := filepath.Join(dir, "rec.jsonl.gz"), filepath.Join(dir, "rec.mmrec")
	cfgSynth := synthetic.DenseBooks(5 * time.Minute)
	synthetic.Write(b, v1, cfgSynth)
	if _, err := recording.Convert(context.Background(), v1, v2); err != nil {
		b.Fatal(err)
	}
	events := 0
	for _, n := range mustBlocks(b, v2).Events {
		events += n
	}
	blocks := mustBlocks(b, v2)
	cfg := replayConfig(b)
	rates := map[string]float64{}
	stage(b, rates, "v1/gunzip", func(b *testing.B) int {
		f, err := os.Open(v1)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			b.Fatal(err)
		}
		return events
	})
	read := func(path string) func(b *testing.B) int {
		return func(b *testing.B) int {
			r, err := recording.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			n := 0
			for _, err := range r.All() {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			return n
		}
	}
	stage(b, rates, "v1/read", read(v1))
	stage(b, rates, "v1/replay-prefetch", func(b *testing.B) int { replayFile(b, v1, cfg, true); return events })
	stage(b, rates, "v2/unzstd", func(b *testing.B) int {
		if _, err := blocks.Decompress(); err != nil {
			b.Fatal(err)
		}
		return events
	})
	stage(b, rates, "v2/decode", func(b *testing.B) int {
		n, err := blocks.Decode()
		if err != nil {
			b.Fatal(err)
		}
		return n
	})
	stage(b, rates, "v2/decode-fixed", func(b *testing.B) int {
		n, err := blocks.DecodeFixed()
		if err != nil {
			b.Fatal(err)
		}
		return n
	})
	stage(b, rates, "v2/read", read(v2))
	stage(b, rates, "v2/read-fixed", func(b *testing.B) int {
		r, err := recording.Open(v2)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		r.FixedLevelsOnly()
		n := 0
		for _, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	})
	stage(b, rates, "v2/scan", func(b *testing.B) int {
		r, err := recording.Open(v2)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		r.SkipLevels()
		n := 0
		for _, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	})
	stage(b, rates, "v2/replay", func(b *testing.B) int { replayFile(b, v2, cfg, false); return events })
	stage(b, rates, "v2/replay-prefetch", func(b *testing.B) int { replayFile(b, v2, cfg, true); return events })
	// Last: the decoded events held in memory make the live heap large,
	// which slows every stage that allocates (GC, cold memory).
	b.Run("memory/replay", func(b *testing.B) {
		_, evs, err := recording.ReadAll(v2)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := replay.Run(context.Background(), &replay.SliceSource{Events: evs}, cfg); err != nil {
				b.Fatal(err)
			}
		}
		r := float64(len(evs)*b.N) / b.Elapsed().Seconds()
		b.ReportMetric(r, "events/s")
		b.ReportMetric(1e9/r, "ns/event")
		rates["memory/replay"] = r
	})
	if len(rates) < 12 {
		return // a -bench pattern ran only some stages
	}
	s1, _ := os.Stat(v1)
	s2, _ := os.Stat(v2)
	var sb strings.Builder
	ratio := func(what, a, c string) {
		fmt.Fprintf(&sb, "\n  %-46s %6.2f", what, rates[a]/rates[c])
	}
	fmt.Fprintf(&sb, "%d events; file %d bytes v1, %d bytes v2 (%.1f and %.2f bytes/event, v2/v1 %.3f)",
		events, s1.Size(), s2.Size(), float64(s1.Size())/float64(events), float64(s2.Size())/float64(events),
		float64(s2.Size())/float64(s1.Size()))
	ratio("v1 read / gunzip", "v1/read", "v1/gunzip")
	ratio("v2 read / unzstd", "v2/read", "v2/unzstd")
	ratio("v2 read / decode", "v2/read", "v2/decode")
	ratio("v2 read-fixed / read", "v2/read-fixed", "v2/read")
	ratio("v2 scan / read", "v2/scan", "v2/read")
	ratio("v2 read / v1 read", "v2/read", "v1/read")
	ratio("v2 replay-prefetch / memory replay", "v2/replay-prefetch", "memory/replay")
	ratio("v2 replay (one goroutine) / memory replay", "v2/replay", "memory/replay")
	ratio("v2 replay-prefetch / v1 replay-prefetch", "v2/replay-prefetch", "v1/replay-prefetch")
	ratio("v2 replay-prefetch / v2 decode", "v2/replay-prefetch", "v2/decode")
	b.Log(sb.String())
}

package recording_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
)

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// v1 → v2 → v1 gives back the same file content, line for line, for the
// synthetic recordings the benchmarks use, a simulated exchange's and the
// importer's golden output; and the version 2 file is smaller than the
// gzip one.
func TestRecordingConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	sources := map[string]func(path string){
		"dense": func(p string) { synthetic.Write(t, p, synthetic.DenseBooks(20*time.Second)) },
		"sparse": func(p string) {
			synthetic.Write(t, p, synthetic.Config{Seed: 3, Duration: 4 * time.Minute, Books: 5, Levels: 10, Trades: 1, Informed: 0.3, Vol: 0.5})
		},
		"simple": func(p string) { synthetic.WriteSimple(t, p, 2000) },
		"imported": func(p string) {
			lines, err := os.ReadFile(filepath.Join("..", "importer", "testdata", "ws_messages.golden.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			w, err := recording.NewWriter(p, recording.WithCreated(fixture.T0), recording.WithSource("mmbot import"))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
				e, err := recording.ParseLine(l)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Write(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, write := range sources {
		t.Run(name, func(t *testing.T) {
			v1, v2, back := filepath.Join(dir, name+".jsonl.gz"), filepath.Join(dir, name+".mmrec"), filepath.Join(dir, name+"-back.jsonl.gz")
			write(v1)
			n1, err := recording.Convert(context.Background(), v1, v2)
			if err != nil {
				t.Fatal(err)
			}
			n2, err := recording.Convert(context.Background(), v2, back)
			if err != nil || n1 != n2 || n1 == 0 {
				t.Fatalf("%d then %d events, %v", n1, n2, err)
			}
			a, b := gunzip(t, v1), gunzip(t, back)
			if !bytes.Equal(a, b) {
				la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
				for i := range min(len(la), len(lb)) {
					if !bytes.Equal(la[i], lb[i]) {
						t.Fatalf("line %d differs:\n%s\n%s", i+1, la[i], lb[i])
					}
				}
				t.Fatalf("%d lines, then %d", len(la), len(lb))
			}
			s1, s2 := size(t, v1), size(t, v2)
			t.Logf("%d events: %d bytes gzip JSON Lines, %d bytes version 2 (%.3f)", n1, s1, s2, float64(s2)/float64(s1))
			// A version 2 file has about 150 bytes of framing that gzip
			// does not; past a few events the binary encoding wins.
			if n1 >= 1000 && s2 >= s1 {
				t.Errorf("version 2 file %d bytes, the gzip one %d", s2, s1)
			}
			// Version 2 to version 2 again is the same file.
			again := filepath.Join(dir, name+"-again.mmrec")
			if _, err := recording.Convert(context.Background(), v2, again); err != nil {
				t.Fatal(err)
			}
			x, _ := os.ReadFile(v2)
			y, _ := os.ReadFile(again)
			if !bytes.Equal(x, y) {
				t.Error("converting a version 2 file to version 2 changed it")
			}
		})
	}
}

// A conversion that fails, or is cancelled, leaves nothing at the
// destination.
func TestRecordingConvertLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.gz")
	synthetic.WriteSimple(t, in, 10_000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "out.mmrec")
	if _, err := recording.Convert(ctx, in, out); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := recording.Convert(context.Background(), cut, out); !errors.Is(err, recording.ErrTruncated) {
		t.Errorf("truncated input: %v", err)
	}
	fixture.AssertDirEntries(t, dir, "cut.jsonl.gz", "in.jsonl.gz")
}

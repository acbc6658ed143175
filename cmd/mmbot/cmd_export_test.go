package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/backtest/export"
)

// mmbot export recording writes the three files and says what it wrote;
// the files hold as many rows as it says.
func TestExportRecordingCommand(t *testing.T) {
	t.Parallel()
	rec := filepath.Join(t.TempDir(), "rec.jsonl.gz")
	writeBtRecording(t, rec)
	out := filepath.Join(t.TempDir(), "pq")
	code, stdout, stderr := runBt("export", "recording", "--row-group-rows", "1000", rec, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 2 metas, 6000 books of one level a side on each of 2 tokens, a trade every 2 s.
	want := fmt.Sprintf("12602 events: 24000 book levels (12000 books, 0 empty) in %s, 600 trades in %s, 2 meta in %s\n",
		filepath.Join(out, export.BooksFile), filepath.Join(out, export.TradesFile), filepath.Join(out, export.MetaFile))
	if stdout != want || stderr != "" {
		t.Errorf("stdout %q, want %q; stderr %q", stdout, want, stderr)
	}
	for name, rows := range map[string]int64{export.BooksFile: 24000, export.TradesFile: 600, export.MetaFile: 2} {
		if n, err := export.NumRows(filepath.Join(out, name)); n != rows || err != nil {
			t.Errorf("%s: %d rows (%v), want %d", name, n, err, rows)
		}
	}
}

func TestExportRecordingErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "recording", "in.jsonl.gz"}, 2, "mmbot export recording: want IN and OUTDIR, got 1 arguments\n"},
		{[]string{"export", "recording", "--row-group-rows", "0", "a", "b"}, 2, "mmbot export recording: --row-group-rows must be at least 1\n"},
		{[]string{"export", "recording", filepath.Join(dir, "missing.jsonl.gz"), filepath.Join(dir, "out")}, 1, "mmbot export recording: open recording: open "},
	}
	for _, c := range cases {
		code, stdout, stderr := runBt(c.args...)
		if code != c.code || stdout != "" || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
	// Nothing is left behind by the failed export.
	if entries, _ := os.ReadDir(filepath.Join(dir, "out")); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

// mmbot backtest --out DIR --parquet writes the run's fills, series and
// totals next to series.csv, with as many rows as the run has fills and
// series.csv has token and portfolio rows; a sweep writes sweep.parquet.
func TestBacktestParquet(t *testing.T) {
	t.Parallel()
	rec, cfg := btSetup(t, btConfig)
	dir := t.TempDir()
	code, stdout, stderr := runBt("backtest", "-c", cfg, "--data", rec, "--out", dir, "--parquet", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run struct {
		Results struct {
			Fills int64 `json:"fills"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &run); err != nil || run.Results.Fills == 0 {
		t.Fatalf("JSON (%v), %d fills:\n%s", err, run.Results.Fills, stdout)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "series.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var tokenRows, totalRows int64
	for _, line := range strings.Split(strings.TrimSpace(string(csv)), "\n")[1:] {
		if strings.Split(line, ",")[1] == "*" {
			totalRows++
		} else {
			tokenRows++
		}
	}
	for name, rows := range map[string]int64{export.FillsFile: run.Results.Fills, export.SeriesFile: tokenRows, export.TotalsFile: totalRows} {
		if n, err := export.NumRows(filepath.Join(dir, name)); n != rows || n == 0 || err != nil {
			t.Errorf("%s: %d rows (%v), want %d", name, n, err, rows)
		}
	}

	sweepDir := t.TempDir()
	code, stdout, stderr = runBt("backtest", "-c", cfg, "--data", rec, "--out", sweepDir, "--parquet", "--sweep", "offset=0.01,0.02", "--workers", "1")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if n, err := export.NumRows(filepath.Join(sweepDir, export.SweepFile)); n != 2 || err != nil {
		t.Errorf("sweep.parquet: %d rows (%v), want 2\n%s", n, err, stdout)
	}

	code, _, stderr = runBt("backtest", "-c", cfg, "--data", rec, "--parquet")
	if code != 2 || stderr != "mmbot backtest: --parquet needs --out\n" {
		t.Errorf("--parquet without --out: exit %d, %q", code, stderr)
	}
}

package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func gunzipFile(t *testing.T, path string) []byte {
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

// mmbot recording convert goes both ways: version 1 → 2 → 1 gives back
// the same JSON lines, and mmbot backtest replays the version 2 file to the
// same results as the version 1 one.
func TestRecordingConvertBothWays(t *testing.T) {
	t.Parallel()
	v1, cfg := btSetup(t, btConfig)
	dir := t.TempDir()
	v2, back := filepath.Join(dir, "rec.mmrec"), filepath.Join(dir, "back.jsonl.gz")
	code, stdout, stderr := runBt("recording", "convert", v1, v2)
	if code != 0 {
		t.Fatalf("v1 → v2: exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`^converted 12\d\d\d events in .* → ` + regexp.QuoteMeta(v2) + ` .* \(v2, 0\.\d+ of the input\)\n$`).MatchString(stdout) {
		t.Errorf("stdout %q", stdout)
	}
	if code, _, stderr := runBt("recording", "convert", v2, back); code != 0 {
		t.Fatalf("v2 → v1: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(gunzipFile(t, v1), gunzipFile(t, back)) {
		t.Error("v1 → v2 → v1 changed the recording")
	}

	code, stdout, stderr = runBt("recording", "info", v2)
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"version  2 (binary, zstd blocks)", "events   12", " in 1 blocks", "span     2026-03-01T12:00:00Z → 2026-03-01T12:20:00.001Z (20m)",
		"checked  header and index"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("info lacks %q:\n%s", want, stdout)
		}
	}
	_, checked, _ := runBt("recording", "info", "--check", v2)
	_, info1, _ := runBt("recording", "info", v1)
	for _, out := range []string{checked, info1} {
		if !strings.Contains(out, "checked  every event") || !strings.Contains(out, "span     2026-03-01T12:00:00Z → 2026-03-01T12:20:00.001Z") {
			t.Errorf("info:\n%s", out)
		}
	}

	outs := map[string]string{}
	for _, rec := range []string{v1, v2} {
		out := filepath.Join(dir, "out-"+filepath.Base(rec))
		if code, _, stderr := runBt("backtest", "-c", cfg, "--data", rec, "--out", out); code != 0 {
			t.Fatalf("backtest %s: exit %d: %s", rec, code, stderr)
		}
		outs[rec] = out
	}
	for _, name := range []string{"series.csv", "summary.txt"} {
		a, err := os.ReadFile(filepath.Join(outs[v1], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outs[v2], name))
		if err != nil {
			t.Fatal(err)
		}
		a = bytes.ReplaceAll(a, []byte(v1), []byte("REC"))
		b = bytes.ReplaceAll(b, []byte(v2), []byte("REC"))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the two versions of the recording:\n%s\n%s", name, a, b)
		}
	}
}

func TestRecordingUsage(t *testing.T) {
	v1, _ := btSetup(t, btConfig)
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.mmrec")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"recording", "convert", v1}, 2, "want IN and OUT, got 1 arguments"},
		{[]string{"recording", "convert", v1, filepath.Join(dir, "x.jsonl.gz"), "--format", "v2"}, 2, "needs a name ending in .mmrec"},
		{[]string{"recording", "convert", v1, filepath.Join(dir, "x.mmrec"), "--level", "max"}, 2, "--level \"max\""},
		{[]string{"recording", "convert", v1, v1}, 2, "IN and OUT are the same file"},
		{[]string{"recording", "convert", filepath.Join(dir, "none.mmrec"), filepath.Join(dir, "x.mmrec")}, 1, "no such file"},
		{[]string{"recording", "info"}, 2, "want one FILE"},
		{[]string{"recording", "info", cut}, 1, "recording truncated"},
	} {
		if c.args[len(c.args)-1] == cut {
			if code, _, stderr := runBt("recording", "convert", v1, filepath.Join(dir, "whole.mmrec")); code != 0 {
				t.Fatal(stderr)
			}
			data, err := os.ReadFile(filepath.Join(dir, "whole.mmrec"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cut, data[:len(data)-30], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := runBt(c.args...)
		if code != c.code || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.mmrec")); !os.IsNotExist(err) {
		t.Errorf("a failed conversion left its output: %v", err)
	}
}

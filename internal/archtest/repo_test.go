package archtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedBytes is the largest file the repository may track outside a
// testdata/ folder: source, docs and small fixtures only, never build output.
const maxTrackedBytes = 1 << 20

// gitFiles lists the files git tracks in the module, or skips the test when
// there is no git or no checkout (a source tarball).
func gitFiles(t *testing.T) (root string, files []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	root = strings.TrimSpace(string(out))
	out, err = exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return root, files
}

// oversized returns the tracked files over limit bytes that are not under a
// testdata/ folder; size reports a file's size (or an error for a file
// deleted in the work tree, which is skipped).
func oversized(files []string, limit int64, size func(string) (int64, error)) []string {
	var bad []string
	for _, f := range files {
		if strings.HasPrefix(f, "testdata/") || strings.Contains(f, "/testdata/") {
			continue
		}
		n, err := size(f)
		if err != nil || n <= limit {
			continue
		}
		bad = append(bad, f)
	}
	return bad
}

// TestNoLargeTrackedFiles fails when git tracks a file over 1 MiB outside
// testdata/: a committed binary (cmd/mmbot/mmbot was once 62.6 MB) or other
// build output.
func TestNoLargeTrackedFiles(t *testing.T) {
	root, files := gitFiles(t)
	size := func(f string) (int64, error) {
		st, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	}
	for _, f := range oversized(files, maxTrackedBytes, size) {
		t.Errorf("%s is tracked and larger than %d bytes: build output and large data do not belong in git (git rm --cached it and ignore it; test data goes under testdata/)", f, maxTrackedBytes)
	}
}

func TestOversizedRule(t *testing.T) {
	sizes := map[string]int64{
		"cmd/mmbot/mmbot":              62_571_912,
		"cmd/mmbot/main.go":            2_000,
		"backtest/testdata/big.mmrec":  5 << 20,
		"testdata/top.bin":             5 << 20,
		"docs/exactly-the-limit.md":    maxTrackedBytes,
		"docs/one-byte-over.md":        maxTrackedBytes + 1,
		"mytestdata/not-testdata.bin":  2 << 20,
		"exchange/testdatax/other.bin": 2 << 20,
	}
	var files []string
	for f := range sizes {
		files = append(files, f)
	}
	got := oversized(files, maxTrackedBytes, func(f string) (int64, error) { return sizes[f], nil })
	want := map[string]bool{"cmd/mmbot/mmbot": true, "docs/one-byte-over.md": true, "mytestdata/not-testdata.bin": true, "exchange/testdatax/other.bin": true}
	if len(got) != len(want) {
		t.Fatalf("oversized = %v, want the %d files %v", got, len(want), want)
	}
	for _, f := range got {
		if !want[f] {
			t.Errorf("oversized reported %s", f)
		}
	}
}

// TestTourOutputIgnored checks that everything the README's quick tour and
// backtest recipe write into the working directory is ignored by git, as the
// README promises.
func TestTourOutputIgnored(t *testing.T) {
	root, _ := gitFiles(t)
	written := []string{
		"mmbot.db", "mmbot.db.paper", "mmbot-demo.db", "mmbot-demo.db.20261127T184022Z", "mmbot-demo.db.addr", "sim-creds.json", "sim-state.json",
		"export/orders.csv", "export/fills.csv",
		"rec.mmrec", "rec.jsonl.gz", "report/report.html", "report/series.csv",
		"mmbot", "cmd/mmbot/mmbot",
	}
	for _, p := range written {
		cmd := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", p)
		if err := cmd.Run(); err != nil {
			t.Errorf("%s (written by the README's tour or a build) is not ignored by .gitignore", p)
		}
	}
}

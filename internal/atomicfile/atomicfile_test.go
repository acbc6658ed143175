package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteFile(t *testing.T) {
	for _, perm := range []fs.FileMode{0o600, 0o644} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.txt")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := WriteFile(path, perm, func(w io.Writer) error {
			_, err := io.WriteString(w, "new content")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != "new content" {
			t.Errorf("content %q", got)
		}
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != perm {
			t.Errorf("mode %v, want %v (%v)", st.Mode().Perm(), perm, err)
		}
		if e := entries(t, dir); len(e) != 1 {
			t.Errorf("directory holds %v", e)
		}
	}
}

func TestWriteErrorKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(path, 0o644, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content %q, want the old one", got)
	}
	if e := entries(t, dir); len(e) != 1 {
		t.Errorf("directory holds %v", e)
	}
}

func TestAbortAndFinished(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if e := entries(t, dir); len(e) != 1 || !strings.HasPrefix(e[0], ".out.txt.tmp-") {
		t.Errorf("while writing the directory holds %v", e)
	}
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := f.Abort(); err != nil {
		t.Errorf("second Abort = %v", err)
	}
	if e := entries(t, dir); len(e) != 0 {
		t.Errorf("after Abort the directory holds %v", e)
	}
	if _, err := f.Write([]byte("y")); !errors.Is(err, ErrFinished) {
		t.Errorf("Write after Abort = %v", err)
	}
	if err := f.Commit(); !errors.Is(err, ErrFinished) {
		t.Errorf("Commit after Abort = %v", err)
	}

	f, err = Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); !errors.Is(err, ErrFinished) {
		t.Errorf("second Commit = %v", err)
	}
	if err := f.Abort(); err != nil {
		t.Errorf("Abort after Commit = %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("committed file: %v", err)
	}
}

func TestCommitFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o755); err != nil { // a directory cannot be renamed over
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "inside"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, 0o644, func(w io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "commit "+path) {
		t.Fatalf("err = %v", err)
	}
	if e := entries(t, dir); len(e) != 1 || e[0] != "taken" {
		t.Errorf("directory holds %v", e)
	}
	if _, err := Create(filepath.Join(dir, "missing", "x"), 0o644); err == nil {
		t.Error("Create in a missing directory succeeded")
	}
}

// TestKilledWriterLeavesOldFile kills a real process in the middle of a
// write: the destination keeps its old content, and only a temporary file
// is left beside it.
func TestKilledWriterLeavesOldFile(t *testing.T) {
	if path := os.Getenv("ATOMICFILE_CHILD"); path != "" {
		f, err := Create(path, 0o644)
		if err != nil {
			os.Exit(3)
		}
		if _, err := f.Write([]byte(strings.Repeat("new ", 1<<16))); err != nil {
			os.Exit(4)
		}
		os.Stdout.WriteString("written\n")
		time.Sleep(time.Minute) // killed here
		os.Exit(5)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesOldFile$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "written\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("child said %q", line)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("destination holds %d bytes, want the old content", len(got))
	}
	e := entries(t, dir)
	if len(e) != 2 || !strings.HasPrefix(e[0], ".state.json.tmp-") || e[1] != "state.json" {
		t.Errorf("directory holds %v", e)
	}
}

func TestMoveAside(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MoveAside(a, b); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(b); err != nil || string(got) != "x" {
		t.Fatalf("moved file: %q, %v", got, err)
	}
	if err := os.WriteFile(a, []byte("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MoveAside(a, b); !errors.Is(err, ErrExists) {
		t.Errorf("over an existing file: %v, want ErrExists", err)
	}
	if got, _ := os.ReadFile(b); string(got) != "x" {
		t.Errorf("the existing file was replaced: %q", got)
	}
}

package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	r := &recorder{TB: t}
	Check(r, path, []byte("a"), false)
	if !r.failed {
		t.Fatal("a missing golden file passed")
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("a"), true)
	if b, err := os.ReadFile(path); r.failed || err != nil || string(b) != "a" {
		t.Fatalf("update did not write the file: %q %v", b, err)
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("a"), false)
	if r.failed {
		t.Fatal("equal output failed")
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("b"), false)
	if !r.failed {
		t.Fatal("different output passed")
	}
}

package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// module is the module path of the repository.
const module = "github.com/mmbot/mmbot"

// pkg is what the tests need of one `go list -json` record.
type pkg struct {
	ImportPath string
	Dir        string
	Name       string
	Doc        string
	Standard   bool
	GoFiles    []string
	// TestGoFiles and XTestGoFiles are the package's tests (in the
	// package and in package x_test).
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	Deps         []string
	Module       *struct{ Path string }
	Error        *struct{ Err string }
}

// ours reports whether path is a package of this module.
func ours(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

// goList runs `go list -e -deps -json ./...` at the module root (with the
// build tags tags) and returns every package it lists, by import path. It skips the test when go is not
// on PATH.
func goList(t *testing.T, tags ...string) map[string]*pkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; dependency and doc checks skipped")
	}
	root, err := exec.Command(goBin, "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	modPath, dir, _ := strings.Cut(strings.TrimSpace(string(root)), " ")
	if modPath != module {
		t.Fatalf("module is %q, the tests expect %q", modPath, module)
	}
	args := []string{"list", "-e", "-deps", "-json"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command(goBin, append(args, "./...")...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -json ./...: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs[p.ImportPath] = &p
	}
	if len(pkgs) == 0 {
		t.Fatal("go list listed no packages")
	}
	return pkgs
}

package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// atomicHome is the one package that renames files into place.
const atomicHome = "internal/atomicfile/"

// TestOneAtomicWriter: write-then-rename lives in internal/atomicfile only.
// Any other non-test file that calls os.Rename is a second copy of it
// (recordings, reports, the simulator's catalog and credentials all write
// through atomicfile; a private temporary copy, as the journal's read-only
// snapshot, renames nothing).
func TestOneAtomicWriter(t *testing.T) {
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, atomicHome) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, c := range renames(t, src) {
			t.Errorf("%s: %s: write through internal/atomicfile instead", rel, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// renames lists the os.Rename calls of one file's source as "line N".
func renames(t *testing.T, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "f.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "os") && sel.Sel.Name == "Rename" {
			out = append(out, fmt.Sprintf("line %d: os.Rename", fset.Position(call.Pos()).Line))
		}
		return true
	})
	return out
}

// TestRenamesFound: the check finds the hand-written write-then-rename that
// the simulator's catalog had before atomicfile, and nothing in a reader.
func TestRenamesFound(t *testing.T) {
	bad := []byte(`package p
func save(path string, b []byte) error {
	tmp, _ := os.CreateTemp(filepath.Dir(path), ".catalog-*")
	tmp.Write(b)
	tmp.Close()
	return os.Rename(tmp.Name(), path)
}`)
	if got := renames(t, bad); len(got) != 1 || got[0] != "line 6: os.Rename" {
		t.Errorf("renames = %q", got)
	}
	good := []byte(`package p
func load(path string) ([]byte, error) { return os.ReadFile(path) }`)
	if got := renames(t, good); len(got) != 0 {
		t.Errorf("renames = %q", got)
	}
}

package state

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The package may import the standard library, exchange (types), bbolt and
// decimal, nothing else (DESIGN.md §2).
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/mmbot/mmbot/exchange": true,
		"go.etcd.io/bbolt":                true,
		"go.etcd.io/bbolt/errors":         true,
		"github.com/shopspring/decimal":   true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

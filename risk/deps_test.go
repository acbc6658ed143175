package risk

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports guards the dependency graph (DESIGN.md §2): risk imports the
// standard library, exchange (types) and decimal only.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"errors": true, "fmt": true, "math": true, "math/bits": true, "strconv": true, "sync": true, "time": true,
		"github.com/mmbot/mmbot/exchange": true, "github.com/shopspring/decimal": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); !allowed[p] {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}

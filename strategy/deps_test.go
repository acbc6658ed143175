package strategy

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports guards the dependency graph (DESIGN.md §2): nothing in
// strategy reaches the network, the signer, the state store or their
// libraries; the Venue, signer and journal are interfaces declared here.
func TestImports(t *testing.T) {
	denied := []string{"net", "net/http", "os", "github.com/mmbot/mmbot/signer", "github.com/mmbot/mmbot/state",
		"github.com/mmbot/mmbot/exchange/sim", "github.com/ethereum/", "go.etcd.io/bbolt"}
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
			p, _ := strconv.Unquote(im.Path.Value)
			for _, d := range denied {
				if p == d || strings.HasSuffix(d, "/") && strings.HasPrefix(p, d) {
					t.Errorf("%s imports %s", f, p)
				}
			}
		}
	}
}

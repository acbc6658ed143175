package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// fixedHome is the one file that converts between decimals and the
// exchange's 6-decimal base units (exchange.Fixed).
const fixedHome = "exchange/fixed.go"

// fixedAllow lists the findings outside fixedHome that are known and
// accepted: a path (a directory when it ends in "/") and, when set, the one
// name allowed there. An entry that no longer matches anything fails the
// test, so the list only shrinks.
var fixedAllow = []struct {
	path, name, why string
}{
	{"strategy/planner_grid.go", "pow10", "the tick grid's powers of ten (ticks in one unit, ticks of at most 4 decimals), not base units"},
	{"signer/eip712.go", "wrapFixedLen", "the fixed-length head of the ERC-7739 wrapper, in bytes"},
}

// TestOneFixedPointType: exchange.Fixed is the module's one conversion
// between decimals and base units. No other non-test file scales a decimal
// by 10^±6 (Shift(±6), decimal.New(v, ±6), with the 6 written as a literal
// or a constant of its package) or declares a look-alike (a name
// with the word fixed, micro or micros, pow10, toUnits or fromUnits).
func TestOneFixedPointType(t *testing.T) {
	root := moduleRoot(t)
	dirs := map[string]map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		dir := pathpkg(rel)
		if dirs[dir] == nil {
			dirs[dir] = map[string][]byte{}
		}
		dirs[dir][rel] = src
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 5 {
		t.Fatalf("only %d package directories under %s", len(dirs), root)
	}
	used := make([]bool, len(fixedAllow))
	var keys []string
	for dir := range dirs {
		keys = append(keys, dir)
	}
	sort.Strings(keys)
	for _, dir := range keys {
		found, err := fixedFindings(dirs[dir])
		if err != nil {
			t.Error(err)
			continue
		}
	next:
		for _, f := range found {
			if f.file == fixedHome {
				continue
			}
			for i, a := range fixedAllow {
				if allowed(a.path, a.name, f) {
					used[i] = true
					continue next
				}
			}
			t.Errorf("%s:%d: %s: convert with exchange.Fixed (%s) instead", f.file, f.line, f.what, fixedHome)
		}
	}
	for i, a := range fixedAllow {
		if !used[i] {
			t.Errorf("fixedAllow entry %s %s matches nothing any more: remove it", a.path, a.name)
		}
	}
}

func pathpkg(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return "."
}

func allowed(path, name string, f finding) bool {
	inPath := f.file == path || strings.HasSuffix(path, "/") && strings.HasPrefix(f.file, path)
	return inPath && (name == "" || name == f.name)
}

// moduleRoot returns the directory of go.mod above the working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// finding is one hand-rolled conversion: the file, the line, the name it
// declares or calls, and what it is.
type finding struct {
	file string
	line int
	name string
	what string
}

// fixedFindings checks the files of one package directory (path → source).
func fixedFindings(files map[string][]byte) ([]finding, error) {
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	consts := map[string]ast.Expr{}
	for path, src := range files {
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		parsed[path] = f
		ast.Inspect(f, func(n ast.Node) bool {
			if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							consts[name.Name] = vs.Values[i]
						}
					}
				}
			}
			return true
		})
	}
	var out []finding
	for path, f := range parsed {
		add := func(pos token.Pos, name, what string) {
			out = append(out, finding{file: path, line: fset.Position(pos).Line, name: name, what: what})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if lookAlike(d.Name.Name, false) {
					add(d.Pos(), d.Name.Name, "func "+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if lookAlike(s.Name.Name, integerType(s.Type)) {
							add(s.Pos(), s.Name.Name, "type "+s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if lookAlike(n.Name, d.Tok == token.CONST) {
								add(n.Pos(), n.Name, d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch {
			case sel.Sel.Name == "Shift" && len(call.Args) == 1:
				if v, ok := constInt(call.Args[0], consts, 0); ok && (v == 6 || v == -6) {
					add(call.Pos(), "Shift", fmt.Sprintf("Shift(%d)", v))
				}
			case sel.Sel.Name == "New" && len(call.Args) == 2 && isIdent(sel.X, "decimal"):
				if v, ok := constInt(call.Args[1], consts, 0); ok && (v == 6 || v == -6) {
					add(call.Pos(), "New", fmt.Sprintf("decimal.New(v, %d)", v))
				}
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].file != out[j].file {
			return out[i].file < out[j].file
		}
		return out[i].line < out[j].line
	})
	return out, nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// lookAlike reports whether a declared name looks like a fixed-point type
// or a base-unit conversion of its own. The word "fixed" counts only where
// it names a new integer type or a constant (a second Fixed, a FIXED_SCALE):
// a FixedBook struct or a func that takes an exchange.Fixed is a user of
// the type, not a copy of it.
func lookAlike(name string, fixedCounts bool) bool {
	lower := strings.ToLower(name)
	if strings.Contains(lower, "tounits") || strings.Contains(lower, "fromunits") {
		return true
	}
	for _, w := range words(name) {
		switch w {
		case "micro", "micros", "pow10":
			return true
		case "fixed":
			if fixedCounts {
				return true
			}
		}
	}
	return false
}

// integerType reports whether e names a predeclared integer type.
func integerType(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	switch id.Name {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return true
	}
	return false
}

// words splits a Go name into lower-case words at case changes and
// underscores: "mulMicros" → mul, micros; "HTTPFixed" → http, fixed;
// "pow10" → pow10.
func words(name string) []string {
	var out []string
	rs := []rune(name)
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '_':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(rs[i]) && (!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush(i)
		}
	}
	flush(len(rs))
	return out
}

// constInt evaluates an integer constant expression made of literals, the
// package's constants, + − × and conversions; exchange.FixedDecimals is 6.
func constInt(e ast.Expr, consts map[string]ast.Expr, depth int) (int64, bool) {
	if depth > 20 {
		return 0, false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.INT {
			v, err := strconv.ParseInt(strings.ReplaceAll(e.Value, "_", ""), 0, 64)
			return v, err == nil
		}
	case *ast.ParenExpr:
		return constInt(e.X, consts, depth+1)
	case *ast.UnaryExpr:
		v, ok := constInt(e.X, consts, depth+1)
		switch e.Op {
		case token.SUB:
			return -v, ok
		case token.ADD:
			return v, ok
		}
	case *ast.BinaryExpr:
		a, ok1 := constInt(e.X, consts, depth+1)
		b, ok2 := constInt(e.Y, consts, depth+1)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch e.Op {
		case token.ADD:
			return a + b, true
		case token.SUB:
			return a - b, true
		case token.MUL:
			return a * b, true
		}
	case *ast.Ident:
		if c, ok := consts[e.Name]; ok {
			return constInt(c, consts, depth+1)
		}
	case *ast.SelectorExpr:
		if e.Sel.Name == "FixedDecimals" {
			return 6, true
		}
	case *ast.CallExpr: // a conversion such as int32(6)
		if len(e.Args) == 1 {
			if _, ok := e.Fun.(*ast.Ident); ok {
				return constInt(e.Args[0], consts, depth+1)
			}
		}
	}
	return 0, false
}

// TestFixedFindings runs the check on made-up packages: each bad file must
// give exactly the findings listed, the good one none.
func TestFixedFindings(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string // the what of each finding, in order
	}{
		{"shift", `package p
func f(d decimal.Decimal) int64 { return d.Shift(6).IntPart() }
func g(c int64) decimal.Decimal { return decimal.NewFromInt(c).Shift(-6) }`,
			[]string{"Shift(6)", "Shift(-6)"}},
		{"constants", `package p
const unitExp = 6
const ( two = 2; four = two + 2 )
func f(d decimal.Decimal) decimal.Decimal { return d.Shift(unitExp).Add(d.Shift(-(four + two))).Add(d.Shift(int32(exchange.FixedDecimals))) }`,
			[]string{"Shift(6)", "Shift(-6)", "Shift(6)"}},
		{"decimal.New", `package p
const exp = -6
func f(v int64) decimal.Decimal { return decimal.New(v, -6).Add(decimal.New(v, exp)).Mul(decimal.New(1, 6)) }`,
			[]string{"decimal.New(v, -6)", "decimal.New(v, -6)", "decimal.New(v, 6)"}},
		{"names", `package p
type Fixed int64
const micro = 1_000_000
var pow10 = [...]int64{1, 10}
type microLimits struct{}
func mulMicros(a, b int64) int64 { return 0 }
func toUnits(d decimal.Decimal) int64 { return 0 }
func (x T) fromUnits() {}
const FIXED_SCALE = 1`,
			[]string{"type Fixed", "const micro", "var pow10", "type microLimits", "func mulMicros", "func toUnits", "func fromUnits", "const FIXED_SCALE"}},
		{"clean", `package p
func (t Top) Microprice() float64 { return 0 }
func size(cs int64) decimal.Decimal { return decimal.New(cs, -2).Shift(2) }
func price(v int64) decimal.Decimal { return exchange.Fixed(v).Decimal() }
func units(d decimal.Decimal) exchange.Fixed { v, _ := exchange.FixedRound(d, exchange.RoundTrunc); return v }
var unfixable, microphone = 1, 2
type FixedBook struct{ Bids []exchange.Fixed }
func fixedLevels(b *FixedBook) []exchange.Fixed { return b.Bids }
var fixedCache = map[exchange.Fixed]decimal.Decimal{}
func shift(d decimal.Decimal, n int32) decimal.Decimal { return d.Shift(n) }`,
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, err := fixedFindings(map[string][]byte{"p/p.go": []byte(tc.src)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found {
				got = append(got, f.what)
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
	if !allowed("p/", "", finding{file: "p/q/fixed.go", name: "Fixed"}) ||
		allowed("strategy/planner_grid.go", "pow10", finding{file: "strategy/planner_grid.go", name: "micro"}) {
		t.Error("allow-list matching is wrong")
	}
}

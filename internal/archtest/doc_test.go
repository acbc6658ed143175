package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestPackageDocs: every package of the module has its package comment in
// doc.go, and only there; a library's comment starts "Package <name>".
func TestPackageDocs(t *testing.T) {
	pkgs := goList(t)
	var paths []string
	for path, p := range pkgs {
		if ours(path) && !p.Standard {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	if len(paths) < 5 {
		t.Fatalf("only %d packages of %s listed", len(paths), module)
	}
	for _, path := range paths {
		p := pkgs[path]
		for _, problem := range docProblems(p) {
			t.Errorf("%s: %s", strings.TrimPrefix(path, module+"/"), problem)
		}
	}
}

// docProblems checks one package directory.
func docProblems(p *pkg) []string {
	fset := token.NewFileSet()
	docFile := filepath.Join(p.Dir, "doc.go")
	if _, err := os.Stat(docFile); err != nil {
		return []string{"no doc.go"}
	}
	f, err := parser.ParseFile(fset, docFile, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		return []string{"doc.go: " + err.Error()}
	}
	var problems []string
	text := ""
	if f.Doc != nil {
		text = strings.TrimSpace(f.Doc.Text())
	}
	switch {
	case text == "":
		problems = append(problems, "doc.go has no package doc comment")
	case f.Name.Name != "main" && !strings.HasPrefix(text, "Package "+f.Name.Name+" "):
		problems = append(problems, "package doc comment should start \"Package "+f.Name.Name+" \"")
	}
	for _, name := range p.GoFiles {
		if name == "doc.go" {
			continue
		}
		g, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err == nil && g.Doc != nil {
			problems = append(problems, name+" has a package doc comment; keep it in doc.go only")
		}
	}
	return problems
}

// TestDocProblems runs the doc check on made-up packages, one per problem.
func TestDocProblems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // "" for no problem
	}{
		{"good", map[string]string{"doc.go": "// Package x does things.\npackage x\n", "x.go": "package x\n"}, ""},
		{"command", map[string]string{"doc.go": "// Command tool does things.\npackage main\n"}, ""},
		{"no doc.go", map[string]string{"x.go": "// Package x does things.\npackage x\n"}, "no doc.go"},
		{"no comment", map[string]string{"doc.go": "package x\n"}, "no package doc comment"},
		{"detached comment", map[string]string{"doc.go": "// Package x does things.\n\npackage x\n"}, "no package doc comment"},
		{"wrong start", map[string]string{"doc.go": "// This package does things.\npackage x\n"}, `should start "Package x "`},
		{"second comment", map[string]string{"doc.go": "// Package x does things.\npackage x\n", "y.go": "// Package x again.\npackage x\n"}, "y.go has a package doc comment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := &pkg{Dir: dir}
			for name, src := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
					t.Fatal(err)
				}
				p.GoFiles = append(p.GoFiles, name)
			}
			got := strings.Join(docProblems(p), "; ")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("problems %q, want %q", got, tc.want)
			}
		})
	}
}

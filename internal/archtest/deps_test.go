package archtest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// rule constrains the imports of a set of packages. Patterns are import
// paths; "x/..." matches x and everything below it; a pattern starting with
// "./" is relative to the module.
type rule struct {
	why      string
	applies  []string // packages the rule constrains
	except   []string // ... except these
	direct   bool     // judge direct imports only; otherwise all dependencies
	deny     []string // no import may match
	onlyOurs []string // when set: an import of this module must match one
}

var rules = []rule{
	{
		why:     "go-ethereum stays inside signer (DESIGN §2)",
		applies: []string{"./..."},
		except:  []string{"./signer/..."},
		direct:  true,
		deny:    []string{"github.com/ethereum/go-ethereum/..."},
	},
	{
		why:     "the exchange types, strategy, risk, state, configs and internal packages never pull in go-ethereum",
		applies: []string{"./exchange/...", "./strategy/...", "./risk/...", "./state/...", "./configs/...", "./internal/..."},
		except:  []string{"./exchange/sim/..."},
		deny:    []string{"github.com/ethereum/go-ethereum/..."},
	},
	{
		why:      "exchange imports nothing of ours but internal packages (it declares the Authenticator it needs)",
		applies:  []string{"./exchange"},
		onlyOurs: []string{"./internal/..."},
	},
	{
		why:     "strategy and risk make no HTTP calls: they reach the exchange through the Venue seam",
		applies: []string{"./strategy/...", "./risk/..."},
		direct:  true,
		deny:    []string{"net/http/..."},
	},
	{
		why:     "strategy and risk know nothing of signer, state or the simulated exchange (interfaces live with their user)",
		applies: []string{"./strategy/...", "./risk/..."},
		deny:    []string{"./signer/...", "./state/...", "./exchange/sim/...", "go.etcd.io/bbolt/..."},
	},
	{
		why:     "risk sits below strategy",
		applies: []string{"./risk/..."},
		deny:    []string{"./strategy/..."},
	},
	{
		why:      "configs imports no package of ours except internal/secret",
		applies:  []string{"./configs/..."},
		onlyOurs: []string{"./internal/secret"},
	},
	{
		why:      "signer uses only the exchange types and internal packages",
		applies:  []string{"./signer/..."},
		onlyOurs: []string{"./exchange", "./internal/..."},
	},
	{
		why:      "state uses only the exchange types and internal packages",
		applies:  []string{"./state/..."},
		onlyOurs: []string{"./exchange", "./internal/..."},
	},
	{
		why:      "internal packages are leaves: they import nothing of ours but each other",
		applies:  []string{"./internal/..."},
		onlyOurs: []string{"./internal/..."},
	},
	{
		why:     "cobra is the command line's: only cmd/ uses it (the libraries take a *pflag.FlagSet)",
		applies: []string{"./..."},
		except:  []string{"./cmd/..."},
		deny:    []string{"github.com/spf13/cobra/..."},
	},
	{
		why:     "no package imports cmd/",
		applies: []string{"./..."},
		except:  []string{"./cmd/..."},
		deny:    []string{"./cmd/..."},
	},
}

// match reports whether path matches pattern.
func match(pattern, path string) bool {
	if rest, ok := strings.CutPrefix(pattern, "./"); ok {
		pattern = module + "/" + rest
		if rest == "..." {
			pattern = module + "/..."
		}
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func matchAny(patterns []string, path string) bool {
	for _, p := range patterns {
		if match(p, path) {
			return true
		}
	}
	return false
}

// violations checks every rule against the packages of the module in pkgs
// and returns one line per broken rule and import, with the import chain
// for an indirect one.
func violations(pkgs map[string]*pkg, rules []rule) []string {
	var paths []string
	for path := range pkgs {
		if ours(path) {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	var out []string
	for _, r := range rules {
		for _, path := range paths {
			if !matchAny(r.applies, path) || matchAny(r.except, path) {
				continue
			}
			p := pkgs[path]
			imports := p.Deps
			if r.direct {
				imports = p.Imports
			}
			for _, imp := range imports {
				bad := matchAny(r.deny, imp)
				if r.onlyOurs != nil && ours(imp) && imp != path && !matchAny(r.onlyOurs, imp) {
					bad = true
				}
				if bad {
					out = append(out, fmt.Sprintf("%s imports %s: %s", short(path), chain(pkgs, path, imp), r.why))
				}
			}
		}
	}
	return out
}

// chain returns the shortest import chain from one package to another, as
// "a -> b -> c" (c alone when a imports it directly).
func chain(pkgs map[string]*pkg, from, to string) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var hops []string
			for n := to; n != from; n = prev[n] {
				hops = append([]string{short(n)}, hops...)
			}
			return strings.Join(hops, " -> ")
		}
		if p := pkgs[cur]; p != nil {
			for _, imp := range p.Imports {
				if _, seen := prev[imp]; !seen {
					prev[imp] = cur
					queue = append(queue, imp)
				}
			}
		}
	}
	return short(to)
}

func short(path string) string { return strings.TrimPrefix(path, module+"/") }

// TestDependencyRules checks the real graph.
func TestDependencyRules(t *testing.T) {
	pkgs := goList(t)
	for _, v := range violations(pkgs, rules) {
		t.Error(v)
	}
}

// TestRulesCatchViolations runs the rules on a made-up graph that breaks
// each of them once, so a rule that can never fire is noticed.
func TestRulesCatchViolations(t *testing.T) {
	m := func(s string) string { return module + "/" + s }
	graph := map[string][]string{
		m("exchange"):         {"net/http", m("internal/secret"), m("risk")},
		m("exchange/sim"):     {m("exchange"), m("signer"), "github.com/ethereum/go-ethereum/common"},
		m("signer"):           {m("exchange"), "github.com/ethereum/go-ethereum/crypto", m("state")},
		m("strategy"):         {m("exchange"), m("risk"), "net/http", m("exchange/sim")},
		m("risk"):             {m("exchange"), m("strategy/model")},
		m("strategy/model"):   {m("cmd/mmbot/util")},
		m("state"):            {m("exchange"), "go.etcd.io/bbolt"},
		m("configs"):          {m("internal/secret"), m("exchange"), "github.com/spf13/cobra"},
		m("internal/secret"):  {},
		m("internal/metrics"): {m("configs")},
		m("cmd/mmbot"):        {m("configs"), m("exchange/sim"), "github.com/spf13/cobra"},
		m("cmd/mmbot/util"):   {},
		m("backtest"):         {"github.com/ethereum/go-ethereum/common"},
	}
	pkgs := map[string]*pkg{}
	for path, imports := range graph {
		pkgs[path] = &pkg{ImportPath: path, Imports: imports}
	}
	// Deps: the transitive closure.
	for path, p := range pkgs {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(n string) {
			for _, imp := range graph[n] {
				if !seen[imp] {
					seen[imp] = true
					walk(imp)
				}
			}
		}
		walk(path)
		for d := range seen {
			p.Deps = append(p.Deps, d)
		}
		sort.Strings(p.Deps)
	}
	got := violations(pkgs, rules)
	want := []string{
		"backtest imports github.com/ethereum/go-ethereum/common: go-ethereum stays inside signer",
		"exchange/sim imports github.com/ethereum/go-ethereum/common: go-ethereum stays inside signer",
		"strategy imports exchange/sim -> github.com/ethereum/go-ethereum/common: the exchange types",
		"exchange imports risk: exchange imports nothing of ours",
		"strategy imports net/http: strategy and risk make no HTTP calls",
		"strategy imports exchange/sim: strategy and risk know nothing",
		"strategy imports exchange/sim -> signer: strategy and risk know nothing",
		"strategy imports exchange/sim -> signer -> state: strategy and risk know nothing",
		"risk imports strategy/model: risk sits below strategy",
		"configs imports exchange: configs imports no package of ours",
		"signer imports state: signer uses only",
		"internal/metrics imports configs: internal packages are leaves",
		"configs imports github.com/spf13/cobra: cobra is the command line's",
		"strategy/model imports cmd/mmbot/util: no package imports cmd/",
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no violation reported starting %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	// And nothing is reported for the allowed edges.
	for _, g := range got {
		for _, ok := range []string{"signer imports github.com/ethereum", "state imports go.etcd.io", "configs imports internal/secret", "exchange imports internal/secret", "cmd/mmbot imports"} {
			if strings.HasPrefix(g, ok) {
				t.Errorf("allowed edge reported: %s", g)
			}
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"./signer/...", module + "/signer", true},
		{"./signer/...", module + "/signer/keys", true},
		{"./signer/...", module + "/signerx", false},
		{"./exchange", module + "/exchange", true},
		{"./exchange", module + "/exchange/sim", false},
		{"./...", module + "/anything/below", true},
		{"net/http/...", "net/http/httptest", true},
		{"net/http/...", "net/http", true},
		{"net/http/...", "net/url", false},
		{"./internal/...", "internal/bytealg", false},
	} {
		if got := match(tc.pattern, tc.path); got != tc.want {
			t.Errorf("match(%q, %q) = %v", tc.pattern, tc.path, got)
		}
	}
}

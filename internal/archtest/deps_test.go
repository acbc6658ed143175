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
		why:     "strategy is pure: it does no I/O (no net, os, io or logging); running it against an exchange is strategy/loop's job",
		applies: []string{"./strategy"},
		direct:  true,
		deny:    []string{"net/...", "os/...", "io/...", "log/...", "github.com/rs/zerolog/..."},
	},
	{
		why:     "the pure strategy package never depends on the loop that runs it",
		applies: []string{"./strategy"},
		deny:    []string{"./strategy/loop/..."},
	},
	{
		why:     "strategy, strategy/loop and risk make no HTTP calls: the loop reaches the exchange through the Venue seam",
		applies: []string{"./strategy/...", "./risk/..."},
		direct:  true,
		deny:    []string{"net/http/..."},
	},
	{
		why:     "strategy, strategy/loop and risk know nothing of signer, state or the simulated exchange (interfaces live with their user)",
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
	// The backtest packages are layered by job, and imports only run down:
	//
	//	report ─> sweep ─> accounting ─> fillmodel ─> recording ─> exchange
	//	replay ─> accounting, fillmodel, recording, strategy
	//	paper ─> fillmodel, recording, strategy
	//	importer, recorder ─> recording
	//	export ─> sweep, accounting, recording (and parquet-go, which no other package imports)
	//	scoreboard ─> replay, accounting, fillmodel, recording, exchange/sim, strategy/loop
	//
	// backtest/internal holds test fixtures: no production package imports it.
	{
		why:      "backtest/recording is the bottom layer: it uses only the exchange types",
		applies:  []string{"./backtest/recording"},
		direct:   true,
		onlyOurs: []string{"./exchange", "./internal/..."},
	},
	{
		why:      "backtest/importer and backtest/recorder write recordings: they use the recording format, not the layers above",
		applies:  []string{"./backtest/importer", "./backtest/recorder"},
		direct:   true,
		onlyOurs: []string{"./backtest/recording", "./exchange", "./strategy", "./internal/..."},
	},
	{
		why:      "backtest/fillmodel sits on the recording format only",
		applies:  []string{"./backtest/fillmodel"},
		direct:   true,
		onlyOurs: []string{"./backtest/recording", "./exchange", "./internal/..."},
	},
	{
		why:      "backtest/accounting uses the fill model and the recording format, nothing above",
		applies:  []string{"./backtest/accounting"},
		direct:   true,
		onlyOurs: []string{"./backtest/fillmodel", "./backtest/recording", "./exchange", "./internal/..."},
	},
	{
		why:      "backtest/sweep runs grids of anything that returns accounting results",
		applies:  []string{"./backtest/sweep"},
		direct:   true,
		onlyOurs: []string{"./backtest/accounting", "./internal/..."},
	},
	{
		why:      "backtest/report renders results and sweeps; it never runs a replay",
		applies:  []string{"./backtest/report"},
		direct:   true,
		onlyOurs: []string{"./backtest/sweep", "./backtest/accounting", "./backtest/fillmodel", "./backtest/recording", "./exchange", "./internal/..."},
	},
	{
		why:      "backtest/paper is a venue over the fill model: no replay, accounting or reports",
		applies:  []string{"./backtest/paper"},
		direct:   true,
		onlyOurs: []string{"./backtest/fillmodel", "./backtest/recording", "./exchange", "./strategy/...", "./internal/..."},
	},
	{
		why:      "backtest/replay drives the loop over the layers below it, and renders nothing",
		applies:  []string{"./backtest/replay"},
		direct:   true,
		onlyOurs: []string{"./backtest/accounting", "./backtest/fillmodel", "./backtest/recording", "./exchange", "./strategy/...", "./internal/..."},
	},
	{
		why:      "backtest/export writes recordings and results as Parquet: it reads the recording format and the accounting's results, and runs nothing",
		applies:  []string{"./backtest/export"},
		direct:   true,
		onlyOurs: []string{"./backtest/recording", "./backtest/accounting", "./backtest/sweep", "./exchange", "./internal/..."},
	},
	{
		why: "backtest/scoreboard generates its recordings with the simulated exchange on its manual clock and replays them; " +
			"the models come from its caller (cmd/mmbot), so it reads no configuration and renders only its table",
		applies:  []string{"./backtest/scoreboard"},
		direct:   true,
		onlyOurs: []string{"./backtest/replay", "./backtest/accounting", "./backtest/fillmodel", "./backtest/recording", "./exchange", "./exchange/sim/...", "./strategy/...", "./internal/..."},
	},
	{
		why:     "the Parquet writer (parquet-go) stays inside backtest/export",
		applies: []string{"./..."},
		except:  []string{"./backtest/export"},
		direct:  true,
		deny:    []string{"github.com/parquet-go/..."},
	},
	{
		why:     "nothing links gRPC: mmbot makes no RPC, and gRPC (which arrow-go's pqarrow brought in through arrow/flight) cost every build of the daemon some 100 google.golang.org packages and a minute of cold compile (issue 19)",
		applies: []string{"./..."},
		deny:    []string{"google.golang.org/grpc/...", "github.com/apache/arrow-go/v18/arrow/flight/..."},
	},
	{
		why:      "ledger reads the journal into the backtest's accounting: it uses state, accounting and the fill model's types, renders nothing and makes no network call",
		applies:  []string{"./ledger"},
		direct:   true,
		deny:     []string{"net/..."},
		onlyOurs: []string{"./state", "./backtest/accounting", "./backtest/fillmodel", "./exchange", "./internal/..."},
	},
	{
		why:     "backtest/internal holds test fixtures: only tests import it",
		applies: []string{"./..."},
		except:  []string{"./backtest/internal/..."},
		direct:  true,
		deny:    []string{"./backtest/internal/..."},
	},
	{
		why:      "the backtest package itself is documentation: it imports nothing",
		applies:  []string{"./backtest"},
		direct:   true,
		onlyOurs: []string{"./internal/secret"},
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
	// What `mmbot run` is lives in daemon, which only the command line
	// imports; its status document is a leaf any reader may import; the
	// configuration becomes parts in assemble, above every library layer.
	//
	//	cmd/mmbot ─> daemon ─> assemble ─> strategy/loop, state, exchange, signer, backtest/paper, configs
	//	cmd/mmbot, daemon ─> daemon/status (a leaf)
	{
		why:     "the daemon package is what mmbot run is: only cmd/mmbot imports it",
		applies: []string{"./..."},
		except:  []string{"./cmd/mmbot"},
		direct:  true,
		deny:    []string{"./daemon"},
	},
	{
		why:      "daemon/status is a leaf: it imports nothing of ours but the exchange types",
		applies:  []string{"./daemon/status"},
		direct:   true,
		onlyOurs: []string{"./exchange"},
	},
	{
		why: "assemble (configuration into parts) sits above the library layers: strategy, exchange, signer, state, risk, " +
			"configs, ledger, backtest and internal never import it or the daemon",
		applies: []string{"./strategy/...", "./exchange/...", "./signer/...", "./state/...", "./risk/...", "./configs/...",
			"./ledger/...", "./backtest/...", "./internal/..."},
		deny: []string{"./assemble/...", "./daemon/..."},
	},
	{
		why:     "assemble sits below the daemon: it builds parts and runs nothing",
		applies: []string{"./assemble/..."},
		deny:    []string{"./daemon/..."},
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
		m("exchange"):                  {"net/http", m("internal/secret"), m("risk")},
		m("exchange/sim"):              {m("exchange"), m("signer"), "github.com/ethereum/go-ethereum/common"},
		m("signer"):                    {m("exchange"), "github.com/ethereum/go-ethereum/crypto", m("state")},
		m("strategy"):                  {m("exchange"), m("risk"), "net/http", m("exchange/sim"), "os", m("strategy/loop")},
		m("strategy/loop"):             {m("strategy"), "net/http/httptest", "go.etcd.io/bbolt"},
		m("risk"):                      {m("exchange"), m("strategy/model")},
		m("strategy/model"):            {m("cmd/mmbot/util")},
		m("state"):                     {m("exchange"), "go.etcd.io/bbolt"},
		m("configs"):                   {m("internal/secret"), m("exchange"), "github.com/spf13/cobra"},
		m("internal/secret"):           {},
		m("internal/metrics"):          {m("configs")},
		m("cmd/mmbot"):                 {m("configs"), m("exchange/sim"), "github.com/spf13/cobra"},
		m("cmd/mmbot/util"):            {},
		m("backtest"):                  {"github.com/ethereum/go-ethereum/common"},
		m("backtest/recording"):        {m("exchange"), m("backtest/fillmodel")},
		m("backtest/fillmodel"):        {m("backtest/recording"), m("backtest/accounting")},
		m("backtest/accounting"):       {m("backtest/fillmodel"), m("backtest/report")},
		m("backtest/report"):           {m("backtest/accounting"), m("backtest/replay")},
		m("backtest/replay"):           {m("backtest/accounting"), m("backtest/report"), m("backtest/internal/fixture")},
		m("backtest/paper"):            {m("backtest/fillmodel"), m("backtest/replay")},
		m("backtest/importer"):         {m("backtest/recording"), m("backtest/fillmodel")},
		m("backtest/sweep"):            {m("backtest/accounting"), m("backtest/replay")},
		m("backtest/internal/fixture"): {m("exchange")},
		m("ledger"):                    {m("state"), m("backtest/accounting"), m("backtest/report"), "net/http"},
		m("backtest/export"):           {m("backtest/recording"), m("backtest/accounting"), m("backtest/replay"), "github.com/parquet-go/parquet-go"},
		m("backtest/report/parquet"):   {"github.com/parquet-go/parquet-go", "github.com/apache/arrow-go/v18/parquet/pqarrow"},
		"github.com/apache/arrow-go/v18/parquet/pqarrow": {"github.com/apache/arrow-go/v18/arrow/flight"},
		"github.com/apache/arrow-go/v18/arrow/flight":    {"google.golang.org/grpc"},
		m("daemon"):              {m("assemble"), m("daemon/status"), m("strategy/loop")},
		m("daemon/status"):       {m("exchange"), m("risk")},
		m("assemble"):            {m("configs"), m("state"), m("daemon")},
		m("backtest/scoreboard"): {m("assemble"), m("backtest/replay")},
		m("internal/sdnotify"):   {m("daemon")},
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
		"strategy imports net/http: strategy is pure",
		"strategy imports os: strategy is pure",
		"strategy imports strategy/loop: the pure strategy package never depends on the loop",
		"strategy imports net/http: strategy, strategy/loop and risk make no HTTP calls",
		"strategy/loop imports net/http/httptest: strategy, strategy/loop and risk make no HTTP calls",
		"strategy imports exchange/sim: strategy, strategy/loop and risk know nothing",
		"strategy imports exchange/sim -> signer: strategy, strategy/loop and risk know nothing",
		"strategy imports exchange/sim -> signer -> state: strategy, strategy/loop and risk know nothing",
		"strategy/loop imports go.etcd.io/bbolt: strategy, strategy/loop and risk know nothing",
		"risk imports strategy/model: risk sits below strategy",
		"configs imports exchange: configs imports no package of ours",
		"signer imports state: signer uses only",
		"internal/metrics imports configs: internal packages are leaves",
		"configs imports github.com/spf13/cobra: cobra is the command line's",
		"strategy/model imports cmd/mmbot/util: no package imports cmd/",
		"backtest/recording imports backtest/fillmodel: backtest/recording is the bottom layer",
		"backtest/fillmodel imports backtest/accounting: backtest/fillmodel sits on the recording format only",
		"backtest/accounting imports backtest/report: backtest/accounting uses the fill model",
		"backtest/report imports backtest/replay: backtest/report renders results",
		"backtest/replay imports backtest/report: backtest/replay drives the loop",
		"backtest/replay imports backtest/internal/fixture: backtest/internal holds test fixtures",
		"backtest/paper imports backtest/replay: backtest/paper is a venue",
		"backtest/importer imports backtest/fillmodel: backtest/importer and backtest/recorder write recordings",
		"backtest/sweep imports backtest/replay: backtest/sweep runs grids",
		"ledger imports backtest/report: ledger reads the journal",
		"ledger imports net/http: ledger reads the journal",
		"backtest/export imports backtest/replay: backtest/export writes recordings and results as Parquet",
		"backtest/report/parquet imports github.com/parquet-go/parquet-go: the Parquet writer (parquet-go) stays inside backtest/export",
		"backtest/report/parquet imports github.com/apache/arrow-go/v18/parquet/pqarrow -> github.com/apache/arrow-go/v18/arrow/flight: nothing links gRPC",
		"backtest/report/parquet imports github.com/apache/arrow-go/v18/parquet/pqarrow -> github.com/apache/arrow-go/v18/arrow/flight -> google.golang.org/grpc: nothing links gRPC",
		"internal/sdnotify imports daemon: the daemon package is what mmbot run is",
		"assemble imports daemon: the daemon package is what mmbot run is",
		"daemon/status imports risk: daemon/status is a leaf",
		"backtest/scoreboard imports assemble: assemble (configuration into parts) sits above",
		"internal/sdnotify imports daemon: assemble (configuration into parts) sits above",
		"assemble imports daemon: assemble sits below the daemon",
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
		for _, ok := range []string{"signer imports github.com/ethereum", "state imports go.etcd.io", "configs imports internal/secret", "exchange imports internal/secret", "cmd/mmbot imports",
			"backtest/fillmodel imports backtest/recording:", "backtest/accounting imports backtest/fillmodel:", "backtest/report imports backtest/accounting:",
			"backtest/replay imports backtest/accounting:", "backtest/paper imports backtest/fillmodel:", "backtest/importer imports backtest/recording:",
			"backtest/sweep imports backtest/accounting:", "backtest/internal/fixture imports exchange:",
			"ledger imports state:", "ledger imports backtest/accounting:",
			"daemon imports assemble:", "daemon imports daemon/status:", "daemon/status imports exchange:", "cmd/mmbot imports daemon:",
			"backtest/export imports backtest/recording:", "backtest/export imports backtest/accounting:", "backtest/export imports github.com/parquet-go"} {
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
		{"./strategy", module + "/strategy/loop", false},
		{"./strategy/...", module + "/strategy/loop", true},
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

package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"go.yaml.in/yaml/v3"
)

// The dashboard and the alert rules of configs/monitoring may name only
// metrics that the daemon's registry (NewRegistry, which cmd/mmbot uses)
// registers, and series that Prometheus makes itself.

const monitoringDir = "../../configs/monitoring"

var (
	dashboardPath = filepath.Join(monitoringDir, "mmbot.dashboard.json")
	rulesPath     = filepath.Join(monitoringDir, "mmbot.rules.yml")
	rulesTestPath = filepath.Join(monitoringDir, "mmbot.rules_test.yml")
	operationsDoc = "../../docs/operations.md"
)

// prometheusSeries are series that Prometheus makes per scrape target.
var prometheusSeries = map[string]bool{"up": true}

// promExpr is one PromQL expression and where it was found.
type promExpr struct{ where, expr string }

// registryNames returns the metric names the registry describes (a vector
// with no series yet is described but not gathered) and the types of those
// it gathers.
func registryNames(t *testing.T, reg *prometheus.Registry) (map[string]bool, map[string]dto.MetricType) {
	t.Helper()
	// Desc has no accessor for its name; its String form has been
	// `Desc{fqName: "name", ...}` since client_golang's first release.
	fq := regexp.MustCompile(`^Desc\{fqName: "([^"]+)"`)
	ch := make(chan *prometheus.Desc)
	go func() {
		reg.Describe(ch)
		close(ch)
	}()
	names := map[string]bool{}
	for d := range ch {
		m := fq.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		names[m[1]] = true
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]dto.MetricType{}
	for _, f := range fams {
		types[f.GetName()] = f.GetType()
	}
	return names, types
}

// unknownMetrics returns the names used by exprs that the registry lacks:
// name_bucket, name_sum and name_count are the series of a histogram (or
// summary, without _bucket) called name.
func unknownMetrics(exprs []promExpr, names map[string]bool, types map[string]dto.MetricType) ([]string, error) {
	var unknown []string
	for _, e := range exprs {
		used, err := promqlMetricNames(e.expr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.where, err)
		}
		for _, n := range used {
			if names[n] || prometheusSeries[n] || histogramSeries(n, names, types) {
				continue
			}
			unknown = append(unknown, fmt.Sprintf("%s (%s)", n, e.where))
		}
	}
	return unknown, nil
}

func histogramSeries(n string, names map[string]bool, types map[string]dto.MetricType) bool {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(n, suffix)
		if !ok || !names[base] {
			continue
		}
		switch types[base] {
		case dto.MetricType_HISTOGRAM:
			return true
		case dto.MetricType_SUMMARY:
			return suffix != "_bucket"
		}
	}
	return false
}

// dashboardExprs returns every PromQL expression of a Grafana dashboard:
// each "expr" anywhere (panel targets, annotations) and the queries of the
// template variables, label_values(expr, label) read as expr.
func dashboardExprs(data []byte) ([]promExpr, error) {
	var d any
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	var out []promExpr
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if s, ok := v[k].(string); ok && k == "expr" {
					out = append(out, promExpr{path + ".expr", s})
					continue
				}
				walk(path+"."+k, v[k])
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("dashboard", d)
	vars, _ := d.(map[string]any)["templating"].(map[string]any)["list"].([]any)
	labelValues := regexp.MustCompile(`^\s*label_values\((.*),\s*[a-zA-Z_]\w*\s*\)\s*$`)
	for i, v := range vars {
		v, _ := v.(map[string]any)
		if v["type"] != "query" {
			continue
		}
		q, _ := v["query"].(string)
		if m, ok := v["query"].(map[string]any); ok {
			q, _ = m["query"].(string)
		}
		if m := labelValues.FindStringSubmatch(q); m != nil {
			q = m[1]
		}
		out = append(out, promExpr{fmt.Sprintf("templating.list[%d] %v", i, v["name"]), q})
	}
	return out, nil
}

// ruleFile is the part of a Prometheus rules file the tests read.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func parseRules(data []byte) (*ruleFile, error) {
	var f ruleFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	return &f, nil
}

func rulesExprs(data []byte) ([]promExpr, error) {
	f, err := parseRules(data)
	if err != nil {
		return nil, err
	}
	var out []promExpr
	for _, g := range f.Groups {
		for i, r := range g.Rules {
			out = append(out, promExpr{fmt.Sprintf("group %s rule %d %s%s", g.Name, i, r.Alert, r.Record), r.Expr})
		}
	}
	return out, nil
}

// monitoringExprs reads the dashboard's and the rules' expressions, with
// edit applied to each file's text first (the negative tests misspell).
func monitoringExprs(t *testing.T, edit func(string) string) []promExpr {
	t.Helper()
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(edit(string(b)))
	}
	d, err := dashboardExprs(read(dashboardPath))
	if err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	r, err := rulesExprs(read(rulesPath))
	if err != nil {
		t.Fatalf("%s: %v", rulesPath, err)
	}
	return append(d, r...)
}

func daemonRegistryNames(t *testing.T) (map[string]bool, map[string]dto.MetricType) {
	t.Helper()
	reg, _, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return registryNames(t, reg)
}

func TestMonitoringUsesOnlyRegisteredMetrics(t *testing.T) {
	names, types := daemonRegistryNames(t)
	exprs := monitoringExprs(t, func(s string) string { return s })
	unknown, err := unknownMetrics(exprs, names, types)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unknown {
		t.Errorf("not in the daemon's registry: %s", u)
	}
	used := map[string]bool{}
	for _, e := range exprs {
		ns, _ := promqlMetricNames(e.expr)
		for _, n := range ns {
			used[n] = true
		}
	}
	// What the issue asks the dashboard and alerts to show is there.
	for _, n := range []string{"mmbot_cycle_seconds_bucket", "mmbot_ratelimit_admitted_total", "mmbot_ratelimit_cap_per_second",
		"mmbot_orders_placed_total", "mmbot_orders_cancelled_total", "mmbot_http_429_total", "mmbot_position_shares", "mmbot_pnl",
		"mmbot_kill_switch_tripped", "mmbot_book_age_seconds", "mmbot_markout_gain_total", "mmbot_markout_loss_total",
		"mmbot_markout_shares_total", "mmbot_http_auth_failures_total", "mmbot_drawdown", "mmbot_cycle_last_success_timestamp_seconds"} {
		if !used[n] {
			t.Errorf("%s is used by neither the dashboard nor the rules", n)
		}
	}
	sorted := make([]string, 0, len(used))
	for n := range used {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	t.Logf("%d expressions use %d metrics: %s", len(exprs), len(sorted), strings.Join(sorted, " "))
}

// docs/operations.md describes every metric of the daemon's own.
func TestOperationsDocListsEveryMetric(t *testing.T) {
	names, _ := daemonRegistryNames(t)
	b, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for n := range names {
		if strings.HasPrefix(n, "mmbot_") && !strings.Contains(doc, "`"+n+"`") && !strings.Contains(doc, "`"+n+"{") {
			t.Errorf("docs/operations.md does not describe %s", n)
		}
	}
}

// A misspelled or invented name, in either file, is reported.
func TestMonitoringMisspelledMetricFails(t *testing.T) {
	names, types := daemonRegistryNames(t)
	cases := []struct{ from, to, want string }{
		{"mmbot_kill_switch_tripped == 1", "mmbot_kill_switch_trippd == 1", "mmbot_kill_switch_trippd"},           // rules
		{"rate(mmbot_cycle_seconds_bucket", "rate(mmbot_cycle_second_bucket", "mmbot_cycle_second_bucket"},        // dashboard
		{"label_values(mmbot_markets,", "label_values(mmbot_market,", "mmbot_market"},                             // a variable
		{"sum(increase(mmbot_http_429_total{", "sum(increase(mmbot_markets_count{", "mmbot_markets_count"},        // _count of a gauge
		{"mmbot_drawdown > 0.5 *", "mmbot_drawdown > 0.5 * mmbot_draw_down +", "mmbot_draw_down"},                 // a second name
		{"increase(mmbot_kill_switch_trips_total", "increase(mmbot_kill_switch_trips", "mmbot_kill_switch_trips"}, // annotation
	}
	for _, c := range cases {
		replaced := false
		exprs := monitoringExprs(t, func(s string) string {
			if strings.Contains(s, c.from) {
				replaced = true
			}
			return strings.Replace(s, c.from, c.to, 1)
		})
		if !replaced {
			t.Fatalf("%q is in neither file: the case tests nothing", c.from)
		}
		unknown, err := unknownMetrics(exprs, names, types)
		if err != nil {
			t.Fatal(err)
		}
		if len(unknown) != 1 || !strings.HasPrefix(unknown[0], c.want+" (") {
			t.Errorf("with %q: unknown %q, want %s only", c.to, unknown, c.want)
		}
	}
	// A broken expression is an error, not a pass.
	exprs := monitoringExprs(t, func(s string) string {
		return strings.Replace(s, "rate(mmbot_cycle_errors_total[5m])", "rate(mmbot_cycle_errors_total[5m]", 1)
	})
	if _, err := unknownMetrics(exprs, names, types); err == nil {
		t.Error("an unbalanced expression passed")
	}
}

// The dashboard imports into any Grafana: its queries use the datasource
// variable, never a fixed data source.
func TestDashboardImportable(t *testing.T) {
	b, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	type ds struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	}
	type panel struct {
		ID         int                      `json:"id"`
		Type       string                   `json:"type"`
		Title      string                   `json:"title"`
		Datasource *ds                      `json:"datasource"`
		GridPos    struct{ X, Y, W, H int } `json:"gridPos"`
		Targets    []struct {
			Datasource *ds    `json:"datasource"`
			Expr       string `json:"expr"`
			RefID      string `json:"refId"`
		} `json:"targets"`
	}
	var d struct {
		UID        string  `json:"uid"`
		Title      string  `json:"title"`
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" {
		t.Error("the dashboard needs a uid and a title")
	}
	hasDS := false
	for _, v := range d.Templating.List {
		if v.Name == "datasource" && v.Type == "datasource" && v.Query == "prometheus" {
			hasDS = true
		}
	}
	if !hasDS {
		t.Fatal(`no "datasource" variable of type datasource for prometheus`)
	}
	want := ds{Type: "prometheus", UID: "${datasource}"}
	ids := map[int]bool{}
	queries := 0
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.W <= 0 || p.GridPos.X+p.GridPos.W > 24 || p.GridPos.H <= 0 {
			t.Errorf("panel %q: grid position %+v outside the 24 columns", p.Title, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || *p.Datasource != want || len(p.Targets) == 0 {
			t.Errorf("panel %q: data source %+v and %d queries, want %+v", p.Title, p.Datasource, len(p.Targets), want)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.Datasource == nil || *tg.Datasource != want || tg.Expr == "" || refs[tg.RefID] {
				t.Errorf("panel %q: query %q (ref %q) has data source %+v, want %+v and a unique ref", p.Title, tg.Expr, tg.RefID, tg.Datasource, want)
			}
			refs[tg.RefID] = true
			queries++
		}
	}
	if queries < 20 {
		t.Errorf("%d queries: the dashboard lost its panels?", queries)
	}
}

// headingAnchors returns the GitHub anchors of a Markdown file's headings.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	for _, line := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(line, "#"); ok {
			h = strings.TrimLeft(h, "#")
			a := drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), "")
			anchors[strings.ReplaceAll(a, " ", "-")] = true
		}
	}
	return anchors
}

// Every alert the issue asks for is there, with a for, a severity, and a
// summary, a description and a runbook that point at a section of
// docs/operations.md that exists.
func TestAlertRules(t *testing.T) {
	b, err := os.ReadFile(rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseRules(b)
	if err != nil {
		t.Fatal(err)
	}
	anchors := headingAnchors(t, operationsDoc)
	var alerts []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			if r.Alert == "" {
				t.Errorf("group %s: a rule without an alert name (%q)", g.Name, r.Expr)
				continue
			}
			if r.For == "" {
				t.Errorf("%s: no for", r.Alert)
			}
			if s := r.Labels["severity"]; s != "critical" && s != "warning" {
				t.Errorf("%s: severity %q, want critical or warning", r.Alert, s)
			}
			if r.Annotations["summary"] == "" || !strings.Contains(r.Annotations["description"], "docs/operations.md#") {
				t.Errorf("%s: needs a summary and a description naming its docs/operations.md section", r.Alert)
			}
			for _, a := range []string{r.Annotations["description"], r.Annotations["runbook_url"]} {
				_, sec, ok := strings.Cut(a, "docs/operations.md#")
				sec, _, _ = strings.Cut(sec, " ")
				if !ok || !anchors[sec] {
					t.Errorf("%s: links docs/operations.md#%s, which has no such section", r.Alert, sec)
				}
			}
		}
	}
	for _, want := range []string{"MmbotKillSwitchTripped", "MmbotNoCompletedCycle", "MmbotThrottled", "MmbotBookStale",
		"MmbotDrawdown", "MmbotAuthFailures"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s", want)
		}
	}
}

// promtool checks the rules and runs their unit tests, and lints the
// daemon's exposition, when it is installed (.ci/run installs it).
func TestPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not on PATH, so the rules are not checked by it here (Debian: the prometheus package ships it; .ci/run installs it)")
	}
	run := func(stdin []byte, args ...string) {
		t.Helper()
		cmd := exec.Command(promtool, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			return
		}
		t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
	}
	run(nil, "check", "rules", rulesPath)
	run(nil, "test", "rules", rulesTestPath)

	reg, m, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	// One series of every vector, so that each family is exposed.
	m.OrdersRejected.WithLabelValues("position_limit").Inc()
	m.TokensInUse.WithLabelValues("clob_books").Set(0.5)
	m.Position.WithLabelValues("0xa", "yes").Set(1)
	m.PnL.WithLabelValues("marked").Set(1)
	m.KillSwitchTrips.WithLabelValues("drawdown").Inc()
	m.BookAgeSeconds.WithLabelValues("0xa").Set(1)
	m.RateCap.WithLabelValues("clob_books").Set(8)
	m.RateAdmitted.WithLabelValues("clob_books").Inc()
	for _, v := range []*prometheus.CounterVec{m.MarkoutGain, m.MarkoutLoss, m.MarkoutShares} {
		v.WithLabelValues("10s").Inc()
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if strings.HasPrefix(f.GetName(), "mmbot_") {
			if err := enc.Encode(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(buf.Bytes(), "check", "metrics")
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
)

// startFlowSim runs a real-time simulated exchange with brisk taker flow on
// 127.0.0.1:0, with no account: a paper session and the recorder need none.
func startFlowSim(t *testing.T, seed uint64, markets int, mut func(*sim.Config)) (*sim.Exchange, sim.URLs) {
	t.Helper()
	cfg := sim.Config{Seed: seed, Markets: markets, Step: 20 * time.Millisecond,
		Flow: sim.FlowConfig{TakerRate: 4, TakerSize: 10, MakerRequote: 300 * time.Millisecond}}
	if mut != nil {
		mut(&cfg)
	}
	ex, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls, err := ex.Start(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = ex.Close()
	})
	return ex, urls
}

// paperConfig writes a config for the exchange at urls without any account
// section: a dry run must not need one.
func paperConfig(t *testing.T, urls sim.URLs, statePath, extra string) string {
	t.Helper()
	text := fmt.Sprintf(`[log]
format = "json"

[exchange]
data_url = %q
catalog_url = %q
clob_url = %q
request_timeout = "5s"

[markets.auto]
enabled = true
max_markets = 2

[strategy]
model = "bands"
cycle = "200ms"

[strategy.bands]
levels = [{ offset = "0.01", size = "10" }, { offset = "0.02", size = "15" }]

[state]
path = %q

[metrics]
enabled = false

[backtest]
fill_model = "optimistic"
latency_order = "0s"
latency_cancel = "0s"
%s
`, urls.Data, urls.Catalog, urls.CLOB, statePath, extra)
	p := filepath.Join(t.TempDir(), "mmbot.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// orderEndpointCalls counts the requests to the order endpoints in the
// exchange's request log, and the POST /books reads.
func orderEndpointCalls(ex *sim.Exchange) (orders, books int) {
	for _, r := range ex.RequestLog() {
		switch {
		case r.Method == "POST" && r.Path == "/clob/orders",
			r.Method == "DELETE" && r.Path == "/clob/order",
			r.Method == "GET" && strings.HasPrefix(r.Path, "/clob/data/order/"):
			orders++
		case r.Method == "POST" && r.Path == "/clob/books":
			books++
		}
	}
	return orders, books
}

func TestRunDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	ex, urls := startFlowSim(t, 11, 3, nil)
	dir := t.TempDir()
	statePath := filepath.Join(dir, "mmbot.db")
	cfg := paperConfig(t, urls, statePath, "")
	var out, errOut lockedBuffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	if err := cmdRun(e, []string{"-c", cfg, "--dry-run", "--duration", "3s", "--status", "off"}); err != nil {
		t.Fatalf("dry run: %v\nstderr:\n%s", err, errOut.String())
	}
	orders, books := orderEndpointCalls(ex)
	if orders != 0 {
		t.Errorf("%d requests reached the order endpoints in a dry run", orders)
	}
	if books == 0 {
		t.Error("the dry run read no books")
	}
	summary := out.String()
	for _, want := range []string{"PAPER RUN (--dry-run): nothing was sent to the exchange", "fill mode optimistic", "latency order 0s, cancel 0s"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	m := regexp.MustCompile(`virtual orders (\d+)`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("no virtual order count in the summary:\n%s", summary)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Errorf("the dry run placed no virtual order:\n%s\nstderr:\n%s", summary, errOut.String())
	}
	if !strings.Contains(errOut.String(), "paper trading (--dry-run)") {
		t.Errorf("no paper-trading log line:\n%s", errOut.String())
	}
	if _, err := os.Stat(statePath + ".paper"); err != nil {
		t.Errorf("paper journal: %v", err)
	}
	if _, err := os.Stat(statePath); !os.IsNotExist(err) {
		t.Errorf("the live journal was created by a dry run: %v", err)
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/state"
)

// The end-to-end tests run the real mmbot binary, built once by TestMain,
// against a simulated exchange served by the test process on 127.0.0.1:0.

// daemonBin is the binary TestMain built ("" under -short); daemonBuildErr
// is why the build failed. Both are written once, before any test runs.
var (
	daemonBin      string
	daemonBuildErr error
)

// waitParallel is how many tests marked t.Parallel run at once when the
// command line does not say (-parallel): the end-to-end tests spend their
// time waiting on daemons' wall clocks (cycles, kills, restarts, fault
// phases), not on the CPU, so more of them than there are cores (the
// default) finish sooner. Each owns its simulated exchange, ports (0),
// temp dirs and daemon processes, and none sets the environment. Under
// -race the daemons are built with the race detector, which multiplies
// their CPU time several times: there Go's default (one test per core)
// stays, or the timing checks (a guard's cancel deadline, a fault phase's
// request count) would measure a starved CPU.
const waitParallel = 8

func TestMain(m *testing.M) {
	flag.Parse()
	if !flagSet("test.parallel") && !raceBuild {
		if err := flag.Set("test.parallel", fmt.Sprint(waitParallel)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	var dir string
	if !testing.Short() {
		var err error
		if dir, err = os.MkdirTemp("", "mmbot-e2e-"); err != nil {
			daemonBuildErr = err
		} else {
			daemonBin, daemonBuildErr = buildDaemon(dir, raceBuild)
		}
	}
	code := m.Run()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	os.Exit(code)
}

// crashpointTag builds the crash points into the tests' binary
// (daemon/crashpoint.go): the crash tests set MMBOT_CRASHPOINT. The release
// build has none (TestReleaseBuildHasNoCrashpoints).
const crashpointTag = "mmbot_crashpoint"

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// buildDaemon runs `go build -tags mmbot_crashpoint -o dir/mmbot .` in this
// package's directory, with -race when the tests themselves run with it.
func buildDaemon(dir string, race bool) (string, error) {
	// `go test` puts its own go command first on PATH.
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build the daemon: %w", err)
	}
	out := filepath.Join(dir, "mmbot")
	args := []string{"build", "-tags", crashpointTag, "-o", out}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command(gobin, append(args, ".")...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, b)
	}
	return out, nil
}

// needDaemon skips under -short and fails when the build failed.
func needDaemon(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test of the mmbot binary: skipped under -short")
	}
	if daemonBuildErr != nil || daemonBin == "" {
		t.Fatalf("building the daemon: %v", daemonBuildErr)
	}
	return daemonBin
}

// simOptions configure a test exchange.
type simOptions struct {
	seed    uint64
	markets int
	flow    sim.FlowConfig
	limits  *exchange.Limits
	fund    string
	// settle and settleFail make the exchange settle matches over time and
	// fail a fraction of them (issue 20 point 6).
	settle     sim.SettlementConfig
	settleFail float64
}

// simEnv is a simulated exchange on a loopback httptest server, with one
// funded account written to a credentials file, the submission tracker in
// front of its handler and a driver that moves its manual clock.
type simEnv struct {
	ex        *sim.Exchange
	srv       *httptest.Server
	tr        *sim.SubmissionTracker
	urls      sim.URLs
	acct      sim.AccountCreds
	credsPath string
	clock     *simClock
}

func newSimEnv(t testing.TB, o simOptions) *simEnv {
	t.Helper()
	if o.fund == "" {
		o.fund = "100000"
	}
	cfg := sim.Config{Seed: o.seed, Markets: o.markets, Manual: true, Flow: o.flow, Limits: o.limits,
		RequestLogSize: 400_000, Rand: rand.NewChaCha8(seedBytes(o.seed + 99)),
		Settlement: o.settle, Faults: sim.Faults{SettleFailRate: o.settleFail}}
	ex, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := ex.TrackSubmissions(ex.Handler())
	srv := httptest.NewServer(tr) // 127.0.0.1:0
	urls := sim.URLs{Data: srv.URL + "/data", Catalog: srv.URL + "/catalog", CLOB: srv.URL + "/clob"}
	acct, err := ex.CreateAccount(sim.AccountOptions{Label: "bot", Fund: decimal.RequireFromString(o.fund)})
	if err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(t.TempDir(), "creds.json")
	if err := sim.WriteCredentialsFile(creds, sim.NewCredentialsFile(urls, 137, []sim.AccountCreds{acct})); err != nil {
		t.Fatal(err)
	}
	se := &simEnv{ex: ex, srv: srv, tr: tr, urls: urls, acct: acct, credsPath: creds, clock: startSimClock(ex)}
	t.Cleanup(func() {
		se.clock.stop()
		srv.Close()
		_ = ex.Close()
		if err := ex.CheckInvariants(); err != nil {
			t.Errorf("simulated exchange invariants: %v", err)
		}
	})
	return se
}

// shares returns the account's share balance per token (zeros left out).
func (se *simEnv) shares(t testing.TB) map[string]decimal.Decimal {
	t.Helper()
	b, ok := se.ex.Balance(se.acct.Wallet)
	if !ok {
		t.Fatalf("no balance for %s", se.acct.Wallet)
	}
	out := map[string]decimal.Decimal{}
	for tok, v := range b.Shares {
		if !v.IsZero() {
			out[tok] = v
		}
	}
	return out
}

// simClock moves the exchange's manual clock to the wall clock every 20 ms,
// so the order flow runs in real time; pause freezes it (no flow, no fills)
// and resume catches up the time missed.
type simClock struct {
	ex     *sim.Exchange
	mu     sync.Mutex // held during Advance; pause takes it
	paused bool
	quit   chan struct{}
	done   chan struct{}
}

func startSimClock(ex *sim.Exchange) *simClock {
	c := &simClock{ex: ex, quit: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *simClock) run() {
	defer close(c.done)
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-c.quit:
			return
		case <-tk.C:
		}
		c.mu.Lock()
		if !c.paused {
			if d := time.Since(c.ex.Now()); d > 0 {
				_ = c.ex.Advance(d)
			}
		}
		c.mu.Unlock()
	}
}

// pause returns once no flow step runs and none will until resume.
func (c *simClock) pause() {
	c.mu.Lock()
	c.paused = true
	c.mu.Unlock()
}

func (c *simClock) resume() {
	c.mu.Lock()
	c.paused = false
	c.mu.Unlock()
}

func (c *simClock) stop() {
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	<-c.done
}

// botConfig is the TOML of a test daemon.
type botConfig struct {
	se         *simEnv
	statePath  string
	markets    int
	cycle      string
	levels     string // TOML array of bands levels
	risk       string // extra [risk] lines
	limits     string // extra [exchange.limits] lines
	exchange   string // extra [exchange] lines
	strategy   string // extra [strategy] lines
	logLevel   string
	cancelWait string
	builder    string // account.builder_code: set, the daemon finds fills in the trade history
}

func (c botConfig) write(t testing.TB, dir string) string {
	t.Helper()
	if c.cycle == "" {
		c.cycle = "200ms"
	}
	if c.levels == "" {
		c.levels = `[{ offset = "0.01", size = "10" }, { offset = "0.02", size = "15" }]`
	}
	if c.logLevel == "" {
		c.logLevel = "info"
	}
	if c.cancelWait == "" {
		c.cancelWait = "20s"
	}
	text := fmt.Sprintf(`[log]
format = "json"
level = %q

[exchange]
data_url = %q
catalog_url = %q
clob_url = %q
request_timeout = "5s"
%s

[exchange.limits]
%s

[account]
credentials_file = %q
builder_code = %q

[markets.auto]
enabled = true
max_markets = %d

[strategy]
model = "bands"
cycle = %q
%s

[strategy.bands]
levels = %s

[risk]
%s

[state]
path = %q

[metrics]
listen = "127.0.0.1:0"

[shutdown]
cancel_timeout = %q
`, c.logLevel, c.se.urls.Data, c.se.urls.Catalog, c.se.urls.CLOB, c.exchange, c.limits, c.se.credsPath, c.builder, c.markets, c.cycle, c.strategy, c.levels,
		c.risk, c.statePath, c.cancelWait)
	p := filepath.Join(dir, "mmbot.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// logLine is one JSON log line of the daemon.
type logLine map[string]any

func (l logLine) msg() string { s, _ := l["message"].(string); return s }

func (l logLine) str(k string) string { s, _ := l[k].(string); return s }

// daemonProc is a running mmbot binary whose stderr (JSON log lines) is
// read as it comes.
type daemonProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdout lockedBuffer

	mu      sync.Mutex
	lines   []logLine
	raw     []string
	changed chan struct{} // closed and replaced on every line
	eof     bool

	done  chan struct{} // closed once the process has been waited for
	state *os.ProcessState
}

// startDaemon starts `mmbot run -c cfg --status off` with the test
// process's environment minus MMBOT_* and NOTIFY_SOCKET, plus extra.
func startDaemon(t testing.TB, bin, cfg string, extra ...string) *daemonProc {
	t.Helper()
	cmd := exec.Command(bin, "run", "-c", cfg, "--status", "off")
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "MMBOT_") || strings.HasPrefix(kv, "NOTIFY_SOCKET=") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, extra...)
	p := &daemonProc{t: t, cmd: cmd, changed: make(chan struct{}), done: make(chan struct{})}
	cmd.Stdout = &p.stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(stderr)
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *daemonProc) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		raw := sc.Text()
		var l logLine
		if json.Unmarshal([]byte(raw), &l) != nil {
			l = logLine{"message": raw, "unparsed": true}
		}
		p.mu.Lock()
		p.lines = append(p.lines, l)
		p.raw = append(p.raw, raw)
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
	p.mu.Lock()
	p.eof = true
	close(p.changed)
	p.mu.Unlock()
	_ = p.cmd.Wait()
	p.state = p.cmd.ProcessState
	close(p.done)
}

// waitLine waits for a log line that pred accepts, from the first line on.
func (p *daemonProc) waitLine(timeout time.Duration, pred func(logLine) bool) (logLine, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	seen := 0
	for {
		p.mu.Lock()
		for ; seen < len(p.lines); seen++ {
			if pred(p.lines[seen]) {
				l := p.lines[seen]
				p.mu.Unlock()
				return l, true
			}
		}
		ch, eof := p.changed, p.eof
		p.mu.Unlock()
		if eof {
			return nil, false
		}
		select {
		case <-ch:
		case <-deadline.C:
			return nil, false
		}
	}
}

// waitMsg waits for a line with this message.
func (p *daemonProc) waitMsg(timeout time.Duration, msg string) (logLine, bool) {
	return p.waitLine(timeout, func(l logLine) bool { return l.msg() == msg })
}

// mustReady waits for the ready line (reconciliation has finished).
func (p *daemonProc) mustReady(timeout time.Duration) {
	p.t.Helper()
	if _, ok := p.waitMsg(timeout, "ready: quoting"); !ok {
		p.t.Fatalf("daemon not ready within %s; log:\n%s", timeout, p.tail(40))
	}
}

// linesWith returns the lines with this message.
func (p *daemonProc) linesWith(msg string) []logLine {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []logLine
	for _, l := range p.lines {
		if l.msg() == msg {
			out = append(out, l)
		}
	}
	return out
}

// messageCounts summarises the log: how many lines carry each message,
// most frequent first.
func (p *daemonProc) messageCounts() string {
	p.mu.Lock()
	n := map[string]int{}
	for _, l := range p.lines {
		n[l.msg()]++
	}
	p.mu.Unlock()
	type mc struct {
		m string
		c int
	}
	var all []mc
	for m, c := range n {
		all = append(all, mc{m, c})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].c > all[j].c || all[i].c == all[j].c && all[i].m < all[j].m })
	var b strings.Builder
	for _, x := range all {
		fmt.Fprintf(&b, "%6d  %s\n", x.c, x.m)
	}
	return b.String()
}

// tail returns the last n raw log lines.
func (p *daemonProc) tail(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.raw[max(0, len(p.raw)-n):], "\n")
}

func (p *daemonProc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		select {
		case <-p.done: // already gone
		default:
			p.t.Fatalf("signal %v: %v", sig, err)
		}
	}
}

// wait waits for the process to end and returns its status.
func (p *daemonProc) wait(timeout time.Duration) (syscall.WaitStatus, bool) {
	select {
	case <-p.done:
		ws, _ := p.state.Sys().(syscall.WaitStatus)
		return ws, true
	case <-time.After(timeout):
		return 0, false
	}
}

func (p *daemonProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// journalView is a read-only look at a journal, taken while the daemon may
// hold it (state.Open with ReadOnly copies it consistently).
type journalView struct {
	all       []state.Order
	nonFinal  map[string]state.Order // by lower-case hash
	known     map[string]state.Order // every order, by lower-case hash
	positions map[string]decimal.Decimal
	fills     []state.Fill
}

func readJournal(t testing.TB, path string) journalView {
	t.Helper()
	st, err := state.Open(path, state.Options{ReadOnly: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("open journal read-only: %v", err)
	}
	defer st.Close()
	v := journalView{nonFinal: map[string]state.Order{}, known: map[string]state.Order{}, positions: map[string]decimal.Decimal{}}
	err = st.View(func(tx *state.Tx) error {
		var err error
		if v.all, err = tx.Orders(state.OrderFilter{}); err != nil {
			return err
		}
		ps, err := tx.Positions()
		if err != nil {
			return err
		}
		for _, p := range ps {
			if !p.Shares.IsZero() {
				v.positions[p.TokenID] = p.Shares
			}
		}
		if v.fills, err = tx.Fills(time.Time{}); err != nil {
			return err
		}
		return tx.Check()
	})
	if err != nil {
		t.Fatalf("read journal: %v", err)
	}
	for _, o := range v.all {
		h := strings.ToLower(o.Hash)
		v.known[h] = o
		if !o.State.Final() {
			v.nonFinal[h] = o
		}
	}
	return v
}

// diffPositions compares journal positions with the exchange's balances.
func diffPositions(journal, exch map[string]decimal.Decimal) []string {
	var out []string
	for tok, j := range journal {
		if e := exch[tok]; !e.Equal(j) {
			out = append(out, fmt.Sprintf("token %s…: journal %s, exchange %s", short(tok), j, e))
		}
	}
	for tok, e := range exch {
		if _, ok := journal[tok]; !ok {
			out = append(out, fmt.Sprintf("token %s…: journal 0, exchange %s", short(tok), e))
		}
	}
	return out
}

func short(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

// testBuilderCode is the builder code of the daemon tests that find fills
// in the trade history (botConfig.builder).
const testBuilderCode = "0x00000000000000000000000000000000000000000000000000000000000000b1"

package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/strategy/loop"
)

// withWrongSecret writes a credentials file for se's account whose API
// secret is another account's, and returns the copy of se that uses it.
func withWrongSecret(t *testing.T, se *simEnv) *simEnv {
	t.Helper()
	other, err := se.ex.CreateAccount(sim.AccountOptions{Label: "other", Fund: decimal.NewFromInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	bad := se.acct
	bad.Secret = other.Secret
	c := *se
	c.acct = bad
	c.credsPath = filepath.Join(t.TempDir(), "creds.json")
	if err := sim.WriteCredentialsFile(c.credsPath, sim.NewCredentialsFile(se.urls, 137, []sim.AccountCreds{bad})); err != nil {
		t.Fatal(err)
	}
	return &c
}

// credsRefusedRun is the one line `mmbot run` ends with when the exchange
// refuses the credentials at start.
var credsRefusedRun = regexp.MustCompile(`^mmbot run: the exchange refused the credentials \(HTTP 401: unauthorized: invalid request signature\); ` +
	`nothing was quoted: check account\.api_key, `)

// TestDaemonWrongSecretExitsAtStart: with a wrong API secret, `mmbot run`
// proves the credentials before it is ready (one GET /data/order/{id} of
// an order that cannot exist), and the refusal ends it with status 1 and
// one line that says the exchange refused the credentials and quotes it:
// no "ready: quoting", nothing placed. Before, it logged "ready: quoting",
// kept /readyz at 200 and failed every order call.
func TestDaemonWrongSecretExitsAtStart(t *testing.T) {
	bin := needDaemon(t)
	se := withWrongSecret(t, newSimEnv(t, simOptions{seed: 61, markets: 2}))
	dir := t.TempDir()
	cfg := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: 1}.write(t, dir)
	start := time.Now()
	p := startDaemon(t, bin, cfg)
	ws, ok := p.wait(15 * time.Second)
	took := time.Since(start)
	if !ok || !ws.Exited() || ws.ExitStatus() != 1 {
		t.Fatalf("with a wrong secret: %v (exited: %v), want exit 1; log:\n%s", ws, ok, p.tail(20))
	}
	last := p.tail(1)
	if !credsRefusedRun.MatchString(last) || strings.Contains(last, "\n") {
		t.Fatalf("last line %q, want one line matching %s", last, credsRefusedRun)
	}
	if len(p.linesWith("ready: quoting")) != 0 {
		t.Error(`"ready: quoting" logged with refused credentials`)
	}
	var probes, orderCalls int
	for _, r := range se.ex.RequestLog() {
		switch {
		case r.Method == http.MethodGet && strings.HasPrefix(r.Path, "/clob/data/order/"):
			probes++
		case r.Path == "/clob/orders" || r.Path == "/clob/order":
			orderCalls++
		}
	}
	if probes != 1 || orderCalls != 0 {
		t.Errorf("%d credential checks and %d order calls, want 1 and 0", probes, orderCalls)
	}
	t.Logf("exited %s after the start with %q", took.Round(time.Millisecond), last)
}

// TestDaemonCredentialsRevokedWhileRunning: the exchange revokes the API
// key while the daemon quotes. The next authenticated call's 401 trips the
// kill switch with reason auth: /readyz fails naming it, the metric of
// trips by reason counts it, and however many calls are refused one line
// says so (its repeats are counted in a summary at shutdown); while it is
// refused, authenticated requests go out one at a time, 1 s, 2 s, 4 s…
// apart. SIGTERM then
// sends one cancel to see whether the key is still refused and exits 1
// saying plainly what to do, instead of retrying every order until
// shutdown.cancel_timeout (about 1000 refused cancels in 10 s before).
func TestDaemonCredentialsRevokedWhileRunning(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 62, markets: 3})
	dir := t.TempDir()
	cfg := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: 2, cancelWait: "10s",
		risk: `max_position = "1000"
max_total_position = "4000"
max_drawdown = "100000"
cooldown = "0s"`}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(20 * time.Second)
	l, ok := p.waitMsg(5*time.Second, "metrics, /healthz and /readyz")
	if !ok {
		t.Fatal("no metrics listen line")
	}
	base := l.str("listen")
	waitFor(t, 20*time.Second, "orders live", func() bool { return len(se.ex.OpenOrders(se.acct.APIKey)) >= 4 })
	if code, body := httpGet(t, base+"/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz = %d %s before the revocation", code, body)
	}

	revoked := time.Now()
	if !se.ex.RevokeCredentials(se.acct.APIKey) {
		t.Fatal("the key was not revoked")
	}
	line, ok := p.waitMsg(10*time.Second, loop.MsgCredentialsRefused)
	if !ok {
		t.Fatalf("no line about the refused credentials; log:\n%s", p.tail(20))
	}
	if line.str("level") != "error" || line["status"] != 401.0 || line.str("error") != "unauthorized: invalid api key" {
		t.Errorf("the line: %v", line)
	}
	waitFor(t, 10*time.Second, "/readyz failing", func() bool { code, _ := httpGet(t, base+"/readyz"); return code != http.StatusOK })
	if code, body := httpGet(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "auth") ||
		!strings.Contains(body, "refused the credentials") {
		t.Fatalf("/readyz = %d %q, want 503 naming the auth trip", code, body)
	}
	_, metrics := httpGet(t, base+"/metrics")
	for _, want := range []string{`mmbot_kill_switch_trips_total{reason="auth"} 1`, "mmbot_kill_switch_tripped 1"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	time.Sleep(3 * time.Second) // the kill switch's cancel-all keeps being refused
	// The requests in flight at the first refusal are refused together;
	// after them one authenticated request goes out 1 s later, then 2 s
	// after that…, the others are not sent. Before, every cycle (200 ms)
	// read every order and cancelled it, each refused.
	refused, later := 0, 0
	var first time.Time
	for _, r := range se.ex.RequestLog() {
		if r.Status == http.StatusUnauthorized && r.Time.After(revoked) {
			refused++
			if first.IsZero() {
				first = r.Time
			}
			if r.Time.Sub(first) > 500*time.Millisecond {
				later++
			}
		}
	}
	if refused < 2 || later > 2 {
		t.Fatalf("%d refused requests in the 3 s after the revocation, %d of them 0.5 s or more after the first; want at least 2, and at most 2 later (at 1 s and 3 s)",
			refused, later)
	}
	if n := len(p.linesWith(loop.MsgCredentialsRefused)); n != 1 {
		t.Errorf("%d lines about the refused credentials for %d refused requests, want 1", n, refused)
	}

	live := len(se.ex.OpenOrders(se.acct.APIKey))
	stop := time.Now()
	p.signal(syscall.SIGTERM)
	ws, ok := p.wait(20 * time.Second)
	if !ok || ws.ExitStatus() != 1 {
		t.Fatalf("after SIGTERM: %v, want exit 1; log:\n%s", ws, p.tail(20))
	}
	stopped := time.Since(stop)
	last := p.tail(1)
	want := regexp.MustCompile("^mmbot run: shutdown: the exchange refused the credentials \\(HTTP 401: unauthorized: invalid api key\\): " +
		"[1-9][0-9]* orders may still be live; fix the credentials \\(.*\\), then run `mmbot cancel-all`$")
	if !want.MatchString(last) {
		t.Errorf("last line %q, want %s", last, want)
	}
	cancels := 0
	for _, r := range se.ex.RequestLog() {
		if r.Method == http.MethodDelete && r.Time.After(stop) {
			cancels++
		}
	}
	if cancels > 1 {
		t.Errorf("the shutdown sent %d cancels with a revoked key, want 1", cancels)
	}
	if len(p.linesWith("the exchange refused the credentials again")) == 0 {
		t.Error("no summary of the repeated refusals at shutdown")
	}
	t.Logf("%d orders live; %d requests refused in the 3 s after the revocation (%d after the first burst), one log line; the shutdown took %s and sent %d cancels",
		live, refused, later, stopped.Round(time.Millisecond), cancels)
}

// TestCancelAllCredentialsRefused: `mmbot cancel-all` with a wrong secret
// says that the exchange refused the credentials and how many orders may
// still be live, after one request, instead of counting failed cancels.
func TestCancelAllCredentialsRefused(t *testing.T) {
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 63, markets: 3})
	dir := t.TempDir()
	statePath := filepath.Join(dir, "mmbot.db")
	cfg := botConfig{se: se, statePath: statePath, markets: 2}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(20 * time.Second)
	waitFor(t, 20*time.Second, "orders live", func() bool { return len(se.ex.OpenOrders(se.acct.APIKey)) >= 4 })
	p.signal(syscall.SIGKILL) // leaves its orders live and in the journal
	p.wait(10 * time.Second)
	open := len(readJournal(t, statePath).nonFinal)
	if open == 0 {
		t.Fatal("no live order in the journal")
	}

	bad := withWrongSecret(t, se)
	cfg = botConfig{se: bad, statePath: statePath, markets: 2}.write(t, t.TempDir())
	before := len(se.ex.RequestLog())
	code, out, errOut := runCLI(t, nil, "cancel-all", "-c", cfg, "--timeout", "10s")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	last := lines[len(lines)-1]
	want := regexp.MustCompile(`^mmbot cancel-all: the exchange refused the credentials \(HTTP 401: unauthorized: invalid request signature\): ` +
		`[0-9]+ orders may still be live; nothing was cancelled: check account\.api_key, .*, then run it again$`)
	if code != 1 || !want.MatchString(last) || !strings.Contains(last, ": "+itoa(open)+" orders may still be live") {
		t.Fatalf("exit %d, stdout %q, last line %q; want exit 1 and %s with %d orders", code, out, last, want, open)
	}
	if strings.Contains(out, "cancels failed") {
		t.Errorf("stdout %q counts failed cancels", out)
	}
	if n := len(se.ex.RequestLog()) - before; n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/configs"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/signer"
)

// lockedBuffer is a bytes.Buffer safe for the command goroutine and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestSimCommandServesAndStops(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedBuffer
	e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	ready := make(chan sim.URLs, 1)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- runSim(e, []string{"--seed", "3", "--markets", "5", "--accounts", "2", "--creds-out", creds,
			"--address", "0x00000000000000000000000000000000000000aa", "--fund", "250"}, func(_ *sim.Exchange, u sim.URLs) { ready <- u })
	}()
	var urls sim.URLs
	select {
	case urls = <-ready:
	case err := <-done:
		t.Fatalf("sim exited early: %v; stderr %s", err, errOut.String())
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not start")
	}
	t.Logf("started in %s", time.Since(start))
	for _, want := range []string{"data_url     " + urls.Data, "catalog_url  " + urls.Catalog, "clob_url     " + urls.CLOB, "credentials  " + creds + " (3 accounts)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.HasPrefix(urls.CLOB, "http://127.0.0.1:") {
		t.Errorf("clob url %s is not loopback", urls.CLOB)
	}
	st, err := os.Stat(creds)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("credentials file mode %v, want 0600", st.Mode().Perm())
	}
	f, err := sim.ReadCredentialsFile(creds)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Accounts) != 3 || f.Accounts[0].PrivateKey == "" || f.Accounts[2].PrivateKey != "" ||
		f.Accounts[2].Address != "0x00000000000000000000000000000000000000aa" || f.CLOB != urls.CLOB {
		t.Errorf("credentials file %+v", f)
	}
	if want := signer.DefaultConfig().ChainID; f.ChainID != want {
		t.Errorf("credentials file chain_id %d, want the simulator's %d", f.ChainID, want)
	}
	resp, err := http.Get(urls.Catalog + "/tags")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "[") {
		t.Errorf("GET /tags: %d %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("sim returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not stop")
	}
	if !strings.Contains(out.String(), "mmbot sim: stopped") {
		t.Errorf("no stop message:\n%s", out.String())
	}
}

func TestSimCommandUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:0"}, "not a loopback address; add --allow-public"},
		{[]string{"--addr", "10.1.2.3:80"}, "not a loopback address; add --allow-public"},
		{[]string{"--signature-type", "2"}, "--signature-type"},
		{[]string{"--fund", "-1"}, "--fund"},
		{[]string{"--shares", "x"}, "--shares"},
		{[]string{"--markets", "0"}, "--markets"},
		{[]string{"--address", "0x12"}, "address"},
		{[]string{"--bogus"}, "unknown flag"},
		{[]string{"--fault-settle-fail-rate", "0.1"}, "--settle-delay"},
		{[]string{"extra"}, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut lockedBuffer
			e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
			err := runSim(e, append(tt.args, "--creds-out", filepath.Join(t.TempDir(), "c.json")), nil)
			var u *usageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a usage error containing %q", err, tt.want)
			}
		})
	}
}

// --stall, --stall-after and --stall-for set the stall window from the
// start time.
func TestSimStallFlags(t *testing.T) {
	var f simFlags
	fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"--stall", "POST /books", "--stall", "DELETE /order", "--stall-after", "12s", "--stall-for", "1m"}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cfg, err := f.config(now)
	if err != nil {
		t.Fatal(err)
	}
	fl := cfg.Faults
	if !slices.Equal(fl.Stall, []string{"POST /books", "DELETE /order"}) || !fl.StallFrom.Equal(now.Add(12*time.Second)) ||
		!fl.StallUntil.Equal(now.Add(72*time.Second)) {
		t.Fatalf("faults %+v", fl)
	}
	if _, err := sim.New(cfg); err != nil {
		t.Fatalf("the simulator refused the stall: %v", err)
	}
}

// --settle-delay, --settle-confirm and --fault-settle-fail-rate set the
// simulator's settlement (issue 20 point 6).
func TestSimSettleFlags(t *testing.T) {
	var f simFlags
	fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"--settle-delay", "2s", "--settle-confirm", "5s", "--fault-settle-fail-rate", "0.1"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Settlement.Delay != 2*time.Second || cfg.Settlement.Confirm != 5*time.Second || cfg.Faults.SettleFailRate != 0.1 {
		t.Fatalf("settlement %+v, fail rate %v", cfg.Settlement, cfg.Faults.SettleFailRate)
	}
	if _, err := sim.New(cfg); err != nil {
		t.Fatalf("the simulator refused the settlement: %v", err)
	}
}

// mmbot sim listens by default where configs/mmbot.example.toml's URLs
// point, so that the example works against it without copying a port.
func TestSimDefaultAddrMatchesTheExampleConfig(t *testing.T) {
	f := newSimCmd(&env{}, nil).Flags().Lookup("addr")
	if f == nil || f.DefValue != simDefaultAddr {
		t.Fatalf("--addr default %v, want %s", f, simDefaultAddr)
	}
	var cfg struct {
		Exchange map[string]any `toml:"exchange"`
	}
	if err := toml.Unmarshal(configs.Example(), &cfg); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"data_url", "catalog_url", "clob_url"} {
		s, _ := cfg.Exchange[key].(string)
		u, err := url.Parse(s)
		if err != nil || u.Host != simDefaultAddr || u.Path != "/"+strings.TrimSuffix(key, "_url") {
			t.Errorf("exchange.%s = %q: want http://%s/%s", key, s, simDefaultAddr, strings.TrimSuffix(key, "_url"))
		}
	}
}

// With account.credentials_file and no exchange URLs, mmbot run trades
// against the URLs the file holds (as mmbot sim writes them).
func TestRunTakesTheURLsFromTheCredentialsFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the daemon for two seconds")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex, err := sim.New(sim.Config{Seed: 6, Markets: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	urls, err := ex.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	creds := filepath.Join(dir, "sim-creds.json")
	simAccountAt(t, ex, creds, urls)
	code, out, errOut := runCLI(t, nil, "run", "--duration", "2s", "--status", "off", "--log-format", "json",
		"--set", "account.credentials_file="+creds, "--set", "markets.auto.enabled=true", "--set", "metrics.enabled=false",
		"--state-path", filepath.Join(dir, "mmbot.db"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, `"clob":"`+urls.CLOB+`"`) || !strings.Contains(errOut, `"message":"exchange"`) {
		t.Errorf("the log does not name the file's URLs:\n%s", errOut)
	}
	if !regexp.MustCompile(`orders sent [1-9]`).MatchString(out) {
		t.Errorf("no order was sent:\n%s", out)
	}

	// config check says where the URLs come from.
	code, out, _ = runCLI(t, nil, "config", "check", "--set", "account.credentials_file="+creds, "--set", "markets.auto.enabled=true")
	want := "exchange: data " + urls.Data + ", catalog " + urls.Catalog + ", clob " + urls.CLOB +
		" (exchange.data_url, exchange.catalog_url, exchange.clob_url from account.credentials_file " + creds + ")"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("config check: exit %d, want %q in:\n%s", code, want, out)
	}
}

// TestSimGarbageFlags: the garbage-books flags reach the exchange's faults.
func TestSimGarbageFlags(t *testing.T) {
	var f simFlags
	fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"--fault-garbage-rate", "0.25", "--fault-garbage-kind", "crossed", "--fault-garbage-markets", "0xa,0xb"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Faults
	if g.GarbageRate != 0.25 || g.GarbageKind != "crossed" || len(g.GarbageMarkets) != 2 || g.GarbageMarkets[1] != "0xb" {
		t.Fatalf("faults %+v", g)
	}
	if _, err := sim.New(sim.Config{Faults: sim.Faults{GarbageKind: "nonsense"}}); err == nil || !strings.Contains(err.Error(), "crossed") {
		t.Errorf("an unknown kind: %v, want an error listing the kinds", err)
	}
}

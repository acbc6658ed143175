package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
)

// doubledPrefix returns the word that line repeats as two prefixes in a
// row ("shutdown: shutdown: ...", "mmbot sim: sim: ..."), or "".
func doubledPrefix(line string) string {
	parts := strings.Split(line, ": ")
	for i := 0; i+1 < len(parts); i++ {
		words := strings.Fields(parts[i])
		if len(words) > 0 && words[len(words)-1] == parts[i+1] {
			return parts[i+1]
		}
	}
	return ""
}

func TestDoubledPrefix(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"mmbot run: shutdown: shutdown: 3 orders may still be live", "shutdown"},
		{"mmbot cancel-all: cancel-all: 3 orders", "cancel-all"},
		{"mmbot sim: sim: listen: x", "sim"},
		{"mmbot run: shutdown: 3 orders may still be live: context deadline exceeded", ""},
		{"mmbot backtest: recording x: gzip: unexpected EOF", ""},
	} {
		if got := doubledPrefix(c.line); got != c.want {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
}

// mmbot sim names itself once, although the simulator's errors start with
// "sim:", and says what to do about a port in use or a public address.
func TestSimErrorsNameTheCommandOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, out, errOut := runCLI(t, nil, "sim", "--addr", l.Addr().String(), "--creds-out", filepath.Join(t.TempDir(), "c.json"))
	want := "mmbot sim: listen: listen tcp " + l.Addr().String() + ": bind: address already in use (another mmbot sim? "
	if code != 1 || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 || doubledPrefix(errOut) != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line starting %q", code, out, errOut, want)
	}

	code, out, errOut = runCLI(t, nil, "sim", "--addr", "0.0.0.0:1")
	want = "mmbot sim: --addr 0.0.0.0:1 is not a loopback address; add --allow-public to listen on it\n"
	if code != 2 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, want)
	}
}

// When the exchange refuses every cancel (a maintenance window), mmbot run's
// shutdown and mmbot cancel-all fail with one line each that names the
// command and the step once: no "shutdown: shutdown:", no
// "cancel-all: cancel-all:".
func TestShutdownAndCancelAllErrorsNameTheirContextOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the daemon for a few seconds")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	ex, err := sim.New(sim.Config{Seed: 5, Markets: 3,
		Faults: sim.Faults{MaintenanceFrom: start.Add(2500 * time.Millisecond), MaintenanceUntil: start.Add(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	urls, err := ex.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := ex.CreateAccount(sim.AccountOptions{Fund: dec("10000")})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds.json")
	if err := sim.WriteCredentialsFile(creds, sim.NewCredentialsFile(urls, 137, []sim.AccountCreds{acct})); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mmbot.toml")
	// No URLs: they come from the credentials file, for run and cancel-all.
	toml := fmt.Sprintf(`[log]
format = "json"
[exchange.retry]
max_attempts = 1
[account]
credentials_file = %q
[markets.auto]
enabled = true
max_markets = 2
[strategy]
cycle = "200ms"
[state]
path = %q
[metrics]
enabled = false
[shutdown]
cancel_timeout = "1s"
`, creds, filepath.Join(dir, "mmbot.db"))
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}

	lastLine := func(s string) string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		return lines[len(lines)-1]
	}
	code, _, errOut := runCLI(t, nil, "run", "-c", cfg, "--duration", "4s", "--status", "off")
	got := lastLine(errOut)
	if code != 1 || !regexp.MustCompile("^mmbot run: shutdown: [1-9][0-9]* orders may still be live: context deadline exceeded \\(run `mmbot cancel-all` to finish\\)$").MatchString(got) {
		t.Fatalf("run: exit %d, last line %q", code, got)
	}
	if w := doubledPrefix(got); w != "" {
		t.Errorf("%q doubles %q", got, w)
	}

	code, out, errOut := runCLI(t, nil, "cancel-all", "-c", cfg, "--timeout", "1500ms")
	got = lastLine(errOut)
	if code != 1 || !regexp.MustCompile(`^mmbot cancel-all: [1-9][0-9]* orders may still be live: context deadline exceeded$`).MatchString(got) {
		t.Fatalf("cancel-all: exit %d, stdout %q, last line %q", code, out, got)
	}
	if w := doubledPrefix(got); w != "" {
		t.Errorf("%q doubles %q", got, w)
	}
}

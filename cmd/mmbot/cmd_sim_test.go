package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/exchange/sim"
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
		{[]string{"--addr", "0.0.0.0:0"}, "non-loopback"},
		{[]string{"--addr", "10.1.2.3:80"}, "non-loopback"},
		{[]string{"--signature-type", "2"}, "--signature-type"},
		{[]string{"--fund", "-1"}, "--fund"},
		{[]string{"--shares", "x"}, "--shares"},
		{[]string{"--markets", "0"}, "--markets"},
		{[]string{"--address", "0x12"}, "address"},
		{[]string{"--bogus"}, "unknown flag"},
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

package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The address comes from --addr, else metrics.listen of the file, the
// environment or --set, as for mmbot run; the rest of the configuration is
// not checked, metrics.* is.
func TestStatusAddress(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Ports nothing listens on, so that every case ends at the no-daemon
	// line, which names the address asked and the metrics.listen it came from.
	port := func() string { _, p, _ := net.SplitHostPort(closedPort(t)); return p }
	p1, p2, p3 := port(), port(), port()
	fileCfg := file("file.toml", "[metrics]\nlisten = \"127.0.0.1:"+p1+"\"\n")
	cases := []struct {
		environ []string
		args    []string
		want    string // the address in the no-daemon line
		listen  string // the metrics.listen it names
	}{
		{nil, []string{"-c", fileCfg}, "127.0.0.1:" + p1, "127.0.0.1:" + p1},
		{[]string{"MMBOT_METRICS_LISTEN=127.0.0.1:" + p2}, []string{"-c", fileCfg}, "127.0.0.1:" + p2, "127.0.0.1:" + p2},
		{[]string{"MMBOT_METRICS_LISTEN=127.0.0.1:" + p2}, []string{"-c", fileCfg, "--set", "metrics.listen=[::1]:" + p3}, "[::1]:" + p3, "[::1]:" + p3},
		{nil, []string{"--set", "metrics.listen=0.0.0.0:" + p3, "--set", "metrics.allow_public=true"}, "127.0.0.1:" + p3, "0.0.0.0:" + p3},
		{nil, []string{"--addr", "127.0.0.1:" + p1}, "127.0.0.1:" + p1, "127.0.0.1:" + p1},
	}
	// Without any configuration: the default address (a daemon may run
	// there on this machine, so only the address asked is checked).
	if _, _, errOut := runCLI(t, nil, "status", "--timeout", "1s"); strings.HasPrefix(errOut, "mmbot status: no daemon answers at ") &&
		!strings.HasPrefix(errOut, "mmbot status: no daemon answers at 127.0.0.1:9464 (") {
		t.Errorf("no configuration: %q, want the default address 127.0.0.1:9464", errOut)
	}
	for _, c := range cases {
		args := append([]string{"status", "--timeout", "2s"}, c.args...)
		code, out, errOut := runCLI(t, c.environ, args...)
		want := fmt.Sprintf("mmbot status: no daemon answers at %s (", c.want)
		wantEnd := fmt.Sprintf("): is mmbot run running with metrics.listen = %q?\n", c.listen)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, wantEnd) {
			t.Errorf("%q %q: exit %d, stdout %q, stderr %q; want exit 1 and %q…%q", c.environ, args, code, out, errOut, want, wantEnd)
		}
	}

	bad := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--set", "metrics.listen=127.0.0.1:0"}, 1, `mmbot status: metrics.listen = "127.0.0.1:0" lets the daemon pick a free port: pass --addr with the address it logged ("metrics, /healthz and /readyz")` + "\n"},
		{[]string{"--set", "metrics.enabled=false"}, 1, "mmbot status: metrics.enabled = false: the daemon serves no status; enable it, or pass --addr\n"},
		{[]string{"--set", "metrics.listen=10.0.0.1:9464"}, 1, "mmbot status: configuration: invalid configuration (1 problem):\n  metrics.listen = \"10.0.0.1:9464\": is not a loopback address; set metrics.allow_public = true to expose metrics\n"},
		{[]string{"-c", fileCfg, "--addr", "127.0.0.1:1"}, 2, "mmbot status: -c and --addr exclude each other\n"},
		{[]string{"--json", "--table"}, 2, "mmbot status: --json and --table exclude each other\n"},
		{[]string{"--timeout", "0s"}, 2, "mmbot status: --timeout must be positive\n"},
		{[]string{"now"}, 2, "mmbot status: unexpected arguments [\"now\"]\n"},
	}
	for _, c := range bad {
		code, out, errOut := runCLI(t, nil, append([]string{"status"}, c.args...)...)
		if code != c.code || out != "" || errOut != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
}

// closedPort returns a loopback address that nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// No daemon: one line that names the address, the cause and the key, and
// exit 1; a listener that never answers is given up after --timeout.
func TestStatusNoDaemon(t *testing.T) {
	addr := closedPort(t)
	code, out, errOut := runCLI(t, nil, "status", "--addr", addr)
	want := fmt.Sprintf("mmbot status: no daemon answers at %s (connection refused): is mmbot run running with metrics.listen = %q?\n", addr, addr)
	if code != 1 || out != "" || errOut != want {
		t.Errorf("closed port: exit %d, stdout %q, stderr %q; want exit 1, %q", code, out, errOut, want)
	}
	cfg := filepath.Join(t.TempDir(), "mmbot.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[metrics]\nlisten = %q\n", addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, nil, "status", "-c", cfg); code != 1 || errOut != want {
		t.Errorf("closed port from -c: exit %d, stderr %q; want %q", code, errOut, want)
	}

	// Accepts the connection, never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	start := time.Now()
	code, _, errOut = runCLI(t, nil, "status", "--addr", ln.Addr().String(), "--timeout", "300ms")
	took := time.Since(start)
	want = fmt.Sprintf("mmbot status: no daemon answers at %s (no answer within 300ms): is mmbot run running with metrics.listen = %q?\n", ln.Addr(), ln.Addr().String())
	if code != 1 || errOut != want || took > 5*time.Second {
		t.Errorf("silent listener: exit %d after %s, stderr %q; want exit 1 soon after 300ms, %q", code, took, errOut, want)
	}
	ln.Close()
	<-done
	for _, c := range held {
		c.Close()
	}
}

// Something answers, but not a status this binary reads: a 404 (an older
// daemon), another schema version, not JSON. A good answer is printed as
// served with --json, and as the table with --table.
func TestStatusAnswers(t *testing.T) {
	good := goldenStatus(t)
	bodies := map[string]string{
		"/old/status":     "",
		"/v2/status":      `{"schema_version": 2, "markets": []}`,
		"/garbage/status": "<html>hello</html>",
		"/good/status":    string(good),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok || b == "" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(b))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	// The command asks host/status; a path prefix in --addr picks the case.
	cases := []struct {
		prefix string
		want   string
	}{
		{"old", "mmbot status: the daemon at " + host + "/old answered 404 Not Found to GET /status: 404 page not found (a daemon older than mmbot status, or not mmbot?)\n"},
		{"v2", "mmbot status: the daemon at " + host + "/v2 serves status schema 2, this mmbot reads 1: use the daemon's own binary\n"},
		{"garbage", "mmbot status: the daemon at " + host + "/garbage answered GET /status with a document that is not the status: invalid character '<' looking for beginning of value\n"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, nil, "status", "--addr", host+"/"+c.prefix)
		if code != 1 || out != "" || errOut != c.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, %q", c.prefix, code, out, errOut, c.want)
		}
	}
	code, out, errOut := runCLI(t, nil, "status", "--addr", host+"/good")
	if code != 0 || errOut != "" || out != string(good) {
		t.Errorf("good answer, not a terminal: exit %d, stderr %q, stdout is not the document as served:\n%s", code, errOut, out)
	}
	code, out, _ = runCLI(t, nil, "status", "--addr", host+"/good", "--json")
	if code != 0 || out != string(good) {
		t.Errorf("--json: exit %d, stdout:\n%s", code, out)
	}
	code, out, _ = runCLI(t, nil, "status", "--addr", host+"/good", "--table")
	if code != 0 || !strings.HasPrefix(out, "mmbot ") || !strings.Contains(out, "will-it-rain-in-paris-on-ma…") || !strings.Contains(out, "KILL SWITCH TRIPPED") {
		t.Errorf("--table: exit %d, stdout:\n%s", code, out)
	}
	if lines := strings.Split(out, "\n"); !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "MARKET ") }) {
		t.Errorf("--table has no header row:\n%s", out)
	}
}

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
)

// TestSimRequestLog: mmbot sim --request-log writes every request as a JSON
// line, flushed on shutdown; --trade-log creates its file.
func TestSimRequestLog(t *testing.T) {
	dir := t.TempDir()
	reqLog, tradeLog := filepath.Join(dir, "req.jsonl"), filepath.Join(dir, "trades.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedBuffer
	e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	ready := make(chan sim.URLs, 1)
	done := make(chan error, 1)
	go func() {
		done <- runSim(e, []string{"--addr", "127.0.0.1:0", "--markets", "3", "--no-flow", "--creds-out", filepath.Join(dir, "c.json"),
			"--request-log", reqLog, "--trade-log", tradeLog}, func(_ *sim.Exchange, u sim.URLs) { ready <- u })
	}()
	var urls sim.URLs
	select {
	case urls = <-ready:
	case err := <-done:
		t.Fatalf("sim exited early: %v; stderr %s", err, errOut.String())
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not start")
	}
	before := time.Now()
	for _, p := range []string{urls.Catalog + "/tags", urls.CLOB + "/nowhere"} {
		resp, err := http.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("sim returned %v", err)
	}
	b, err := os.ReadFile(reqLog)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("request log:\n%s\nwant 2 lines", b)
	}
	for i, want := range []simRequestLine{{Method: "GET", Path: "/catalog/tags", Status: 200}, {Method: "GET", Path: "/clob/nowhere", Status: 404}} {
		var got simRequestLine
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		if got.Method != want.Method || got.Path != want.Path || got.Status != want.Status || time.Unix(0, got.Time).Before(before) {
			t.Errorf("line %d: %s, want %+v after %v", i, lines[i], want, before)
		}
	}
	if st, err := os.Stat(tradeLog); err != nil || st.Size() != 0 {
		t.Errorf("trade log without trades: %v, %v", st, err)
	}
}

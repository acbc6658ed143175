package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
)

// TestSimRecord runs mmbot sim --record until a trade has printed, stops it
// and reads the committed recording back.
func TestSimRecord(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sim.mmrec")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	ready := make(chan sim.URLs, 1)
	done := make(chan error, 1)
	go func() {
		done <- runSim(e, []string{"--seed", "4", "--markets", "2", "--accounts", "0", "--creds-out", "", "--flow-rate", "5",
			"--step", "20ms", "--record", out}, func(_ *sim.Exchange, u sim.URLs) { ready <- u })
	}()
	var urls sim.URLs
	select {
	case urls = <-ready:
	case err := <-done:
		t.Fatalf("sim exited early: %v; stderr %s", err, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not start")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the recording exists before shutdown: %v", err)
	}
	// Wait for the first trade on the exchange's own tape.
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(urls.Data + "/trades?limit=1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var trades []json.RawMessage
		if err := json.Unmarshal(body, &trades); err != nil {
			t.Fatalf("GET /trades: %v: %s", err, body)
		}
		if len(trades) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no trade printed")
		}
		time.Sleep(20 * time.Millisecond) // polling for a condition, not timing it
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("sim did not stop")
	}
	if !strings.Contains(stdout.String(), "recording    "+out) || !strings.Contains(stdout.String(), "events to "+out+" (0 skipped)") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	books, trades, metas := checkRecording(t, out, "mmbot sim", 2)
	if metas != 4 || books < 4 || trades < 1 {
		t.Errorf("%d books, %d trades, %d metas", books, trades, metas)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/internal/addrfile"
)

// mmbot status -c configs/demo.toml finds the demo's daemon although
// metrics.listen = "127.0.0.1:0" lets it pick a free port: the daemon
// publishes the address it bound beside its journal, and removes it when
// it stops. A file a dead daemon left behind is reported as stale.
func TestStatusFindsTheDemoDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for a few seconds")
	}
	demo := filepath.Join("..", "..", "configs", "demo.toml")
	journal := filepath.Join(t.TempDir(), "mmbot-demo.db")
	done := make(chan string, 1)
	go func() {
		code, out, errOut := runCLI(t, nil, "run", "-c", demo, "--duration", "8s", "--status", "off", "--state-path", journal)
		if code != 0 {
			done <- "exit " + out + errOut
			return
		}
		done <- ""
	}()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := os.Stat(addrfile.PathFor(journal)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon published no address in %s", addrfile.PathFor(journal))
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, out, errOut := runCLI(t, nil, "status", "--json", "-c", demo, "--state-path", journal)
	var doc status.Status
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.SchemaVersion != status.Schema {
		t.Errorf("mmbot status -c demo.toml: exit %d, stderr %q, stdout %.200q", code, errOut, out)
	}
	if msg := <-done; msg != "" {
		t.Fatalf("the demo failed: %s", msg)
	}
	if _, err := os.Stat(addrfile.PathFor(journal)); !os.IsNotExist(err) {
		t.Errorf("the address file outlived the daemon: %v", err)
	}

	// A file left by a daemon that died: stale, said so.
	if _, err := addrfile.Publish(addrfile.PathFor(journal), addrfile.Record{Addr: closedPort(t), PID: 0}); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, nil, "status", "--json", "-c", demo, "--state-path", journal)
	if code != 1 || !strings.Contains(errOut, "stale address file") || !strings.Contains(errOut, "lets the daemon pick a free port") {
		t.Errorf("stale address file: exit %d, stderr %q", code, errOut)
	}
}

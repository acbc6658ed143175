package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim"
)

// mmbot sim --state keeps its accounts across a restart: the second start
// writes the same keys and API credentials to the credentials file (only
// the URLs change with the port), so a journal written with them still
// belongs to the exchange.
func TestSimStateKeepsAccountsAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	state, creds := filepath.Join(dir, "sim-state.json"), filepath.Join(dir, "creds.json")
	serve := func(seed string) (sim.CredentialsFile, string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out, errOut lockedBuffer
		e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
		ready := make(chan struct{}, 1)
		done := make(chan error, 1)
		go func() {
			done <- runSim(e, []string{"--seed", seed, "--markets", "3", "--accounts", "2", "--creds-out", creds, "--state", state},
				func(*sim.Exchange, sim.URLs) { ready <- struct{}{} })
		}()
		select {
		case <-ready:
		case err := <-done:
			t.Fatalf("sim exited early: %v; stderr %s", err, errOut.String())
		case <-time.After(10 * time.Second):
			t.Fatal("sim did not start")
		}
		f, err := sim.ReadCredentialsFile(creds)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("sim returned %v; stderr %s", err, errOut.String())
		}
		return f, out.String()
	}
	first, out1 := serve("3")
	if strings.Contains(out1, "restored") || !strings.Contains(out1, "state        "+state) {
		t.Errorf("first start's output:\n%s", out1)
	}
	second, out2 := serve("4")
	if !strings.Contains(out2, "restored from "+state) {
		t.Errorf("second start's output does not say it restored:\n%s", out2)
	}
	if len(first.Accounts) != 2 || len(second.Accounts) != 2 {
		t.Fatalf("accounts: %d then %d, want 2 and 2", len(first.Accounts), len(second.Accounts))
	}
	for i := range first.Accounts {
		if first.Accounts[i] != second.Accounts[i] {
			t.Errorf("account %d changed across the restart:\n%+v\n%+v", i, first.Accounts[i], second.Accounts[i])
		}
	}
}

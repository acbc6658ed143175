package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// notifyRecorder collects the datagrams the daemon sends to $NOTIFY_SOCKET.
type notifyRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *notifyRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

func (r *notifyRecorder) index(prefix string) int {
	for i, m := range r.all() {
		if strings.HasPrefix(m, prefix) {
			return i
		}
	}
	return -1
}

func listenNotify(t *testing.T) (string, *notifyRecorder) {
	t.Helper()
	dir, err := os.MkdirTemp("", "sdn") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &notifyRecorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			rec.mu.Lock()
			rec.msgs = append(rec.msgs, string(buf[:n]))
			rec.mu.Unlock()
		}
	}()
	t.Cleanup(func() { conn.Close(); <-done })
	return path, rec
}

// The daemon speaks systemd's notify protocol as the unit expects: a status
// while it reconciles, READY=1 only after reconciliation, WATCHDOG=1 only
// as cycles complete (never before READY), STATUS= lines, and STOPPING=1 on
// SIGTERM before it cancels its orders and exits 0.
func TestDaemonNotifiesSystemd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real daemon; skipped with -short")
	}
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 31, markets: 4})
	dir := t.TempDir()
	cfg := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: 2, cycle: "200ms"}.write(t, dir)
	sock, rec := listenNotify(t)
	p := startDaemon(t, bin, cfg, "NOTIFY_SOCKET="+sock)
	p.mustReady(30 * time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for rec.index("WATCHDOG=1") < 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	p.signal(syscall.SIGTERM)
	ws, ok := p.wait(30 * time.Second)
	if !ok || ws.ExitStatus() != 0 {
		t.Fatalf("daemon did not exit 0 after SIGTERM (%v); log:\n%s", ws, p.tail(30))
	}
	time.Sleep(100 * time.Millisecond) // the last datagram may still be in flight
	msgs := rec.all()
	t.Logf("notifications: %q", msgs)
	reconciling, ready := rec.index("STATUS=reconciling"), rec.index("READY=1")
	watchdog, stopping := rec.index("WATCHDOG=1"), rec.index("STOPPING=1")
	switch {
	case reconciling < 0 || ready < 0 || watchdog < 0 || stopping < 0:
		t.Fatalf("missing notifications (reconciling %d, ready %d, watchdog %d, stopping %d): %q", reconciling, ready, watchdog, stopping, msgs)
	case !(reconciling < ready && ready < watchdog && watchdog < stopping):
		t.Fatalf("notifications out of order: %q", msgs)
	}
	if rec.index("STATUS=") < 0 || !strings.Contains(strings.Join(msgs, "\n"), "live orders") {
		t.Errorf("no STATUS= line about the quoting: %q", msgs)
	}
	for _, m := range msgs[stopping:] {
		if m == "WATCHDOG=1" || m == "READY=1" {
			t.Errorf("%s after STOPPING=1: %q", m, msgs)
		}
	}
}

// configs/systemd/mmbot.service is a valid unit: systemd-analyze verify,
// where systemd is installed, finds nothing to say about it (with
// ExecStart pointed at a binary that exists).
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed: the unit file is not verified here")
	}
	unit, err := os.ReadFile(filepath.Join("..", "..", "configs", "systemd", "mmbot.service"))
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(unit), "/usr/local/bin/mmbot", self)
	for _, want := range []string{"Type=notify", "WatchdogSec=", "DynamicUser=yes", "StateDirectory=mmbot", "ProtectSystem=strict",
		"NoNewPrivileges=yes", "PrivateTmp=yes", "LoadCredential=mmbot-key:", "StartLimitBurst=", "KillSignal=SIGTERM"} {
		if !strings.Contains(text, want) {
			t.Errorf("unit lacks %s", want)
		}
	}
	path := filepath.Join(t.TempDir(), "mmbot.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(line, "mmbot.service") {
			problems = append(problems, line)
		}
	}
	if len(problems) > 0 {
		t.Fatalf("systemd-analyze verify (%v):\n%s", err, strings.Join(problems, "\n"))
	}
}

// configs/systemd/mmbot@.service runs one daemon per account: the instance
// name picks the configuration, the journal's directory and the credential
// files, so two instances share nothing. systemd-analyze verify (where
// installed) finds nothing to say about two instances of it.
func TestSystemdTemplateUnitVerifies(t *testing.T) {
	unit, err := os.ReadFile(filepath.Join("..", "..", "configs", "systemd", "mmbot@.service"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(unit)
	for _, want := range []string{"Type=notify", "WatchdogSec=", "DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes",
		"StartLimitBurst=", "KillSignal=SIGTERM",
		"-c /etc/mmbot/%i.toml", "StateDirectory=mmbot/%i", "--state-path ${STATE_DIRECTORY}/mmbot.db",
		"LoadCredential=mmbot-key:/etc/mmbot/credentials/%i/mmbot-key",
		"LoadCredential=mmbot-api-secret:/etc/mmbot/credentials/%i/mmbot-api-secret",
		"LoadCredential=mmbot-passphrase:/etc/mmbot/credentials/%i/mmbot-passphrase"} {
		if !strings.Contains(text, want) {
			t.Errorf("template unit lacks %s", want)
		}
	}
	// Everything the single unit hardens, the template hardens too.
	single, err := os.ReadFile(filepath.Join("..", "..", "configs", "systemd", "mmbot.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(single), "\n") {
		if strings.HasPrefix(line, "Protect") || strings.HasPrefix(line, "Restrict") || strings.HasPrefix(line, "SystemCall") ||
			strings.HasPrefix(line, "Private") || strings.HasPrefix(line, "Capability") || strings.HasPrefix(line, "MemoryMax") {
			if !strings.Contains(text, line+"\n") {
				t.Errorf("template unit lacks the single unit's %s", line)
			}
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed: the template unit is not verified here")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text = strings.ReplaceAll(text, "/usr/local/bin/mmbot", self)
	if err := os.WriteFile(filepath.Join(dir, "mmbot@.service"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var instances []string
	for _, inst := range []string{"alice", "bob"} {
		p := filepath.Join(dir, "mmbot@"+inst+".service")
		if err := os.Symlink("mmbot@.service", p); err != nil {
			t.Fatal(err)
		}
		instances = append(instances, p)
	}
	out, err := exec.Command(analyze, append([]string{"verify"}, instances...)...).CombinedOutput()
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(line, "mmbot@") {
			problems = append(problems, line)
		}
	}
	if len(problems) > 0 || (err != nil && len(strings.TrimSpace(string(out))) == 0) {
		t.Fatalf("systemd-analyze verify (%v):\n%s", err, strings.Join(problems, "\n"))
	}
	t.Logf("systemd-analyze verify: %v %s", err, out)
}

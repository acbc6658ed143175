package addrfile

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestPublishLookupRemove(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	path := PathFor(filepath.Join(t.TempDir(), "mmbot-demo.db"))
	if filepath.Base(path) != "mmbot-demo.db.addr" {
		t.Errorf("path %s", path)
	}
	rec := Record{Addr: ln.Addr().String(), PID: os.Getpid(), Started: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	remove, err := Publish(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file %v, %v; want mode 0600", fi, err)
	}
	got, err := Lookup(context.Background(), path)
	if err != nil || got != rec {
		t.Errorf("Lookup: %+v, %v; want %+v", got, err, rec)
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup(context.Background(), path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after remove: %v, want os.ErrNotExist", err)
	}
	if err := remove(); err != nil {
		t.Errorf("a second remove: %v", err)
	}
}

// A file a crashed daemon left behind is stale: its process is gone, or
// nothing listens at its address any more.
func TestLookupStale(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now

	closed := filepath.Join(dir, "closed.addr")
	if _, err := Publish(closed, Record{Addr: addr, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup(context.Background(), closed); !errors.Is(err, ErrStale) {
		t.Errorf("closed listener: %v, want ErrStale", err)
	}

	// a process that has exited
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	live, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	exited := filepath.Join(dir, "exited.addr")
	if _, err := Publish(exited, Record{Addr: live.Addr().String(), PID: cmd.Process.Pid}); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup(context.Background(), exited); !errors.Is(err, ErrStale) {
		t.Errorf("exited process: %v, want ErrStale", err)
	}
}

func TestReadRejectsGarbage(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"not json": "127.0.0.1:1", "no port": `{"addr":"127.0.0.1"}`} {
		p := filepath.Join(dir, "x.addr")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	if _, err := Publish(filepath.Join(dir, "y.addr"), Record{Addr: "nowhere"}); err == nil {
		t.Error("published an address without a port")
	}
	if RuntimePath("") != "" || RuntimePath("/run/mmbot/alice") != "/run/mmbot/alice/metrics.addr" {
		t.Error("RuntimePath")
	}
}

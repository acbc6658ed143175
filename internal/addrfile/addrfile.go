package addrfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mmbot/mmbot/internal/atomicfile"
)

// Record is what the file holds.
type Record struct {
	Addr    string    `json:"addr"` // host:port the listener bound
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// ErrStale is returned by Lookup for a record whose daemon is gone: its
// process no longer runs, or nothing accepts connections at its address.
var ErrStale = errors.New("stale address file: the daemon that wrote it is not running")

// PathFor is the address file beside a journal: "<statePath>.addr".
func PathFor(statePath string) string { return statePath + ".addr" }

// RuntimePath is the address file in a runtime directory (systemd's
// $RUNTIME_DIRECTORY), or "" when dir is empty.
func RuntimePath(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "metrics.addr")
}

// Publish writes rec to path atomically (mode 0600) and returns a function
// that removes the file again (for a clean shutdown; a missing file is not
// an error).
func Publish(path string, rec Record) (remove func() error, err error) {
	if _, _, err := net.SplitHostPort(rec.Addr); err != nil {
		return nil, fmt.Errorf("address file %s: address %q: %w", path, rec.Addr, err)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("address file %s: %w", path, err)
	}
	err = atomicfile.WriteFile(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("address file: %w", err)
	}
	return func() error {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("address file: %w", err)
		}
		return nil
	}, nil
}

// Read reads the record at path; a missing file wraps os.ErrNotExist.
func Read(path string) (Record, error) {
	var rec Record
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, fmt.Errorf("address file: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("address file %s: %w", path, err)
	}
	if _, _, err := net.SplitHostPort(rec.Addr); err != nil {
		return rec, fmt.Errorf("address file %s: address %q: %w", path, rec.Addr, err)
	}
	return rec, nil
}

// Lookup reads the record at path and checks that its daemon is alive: the
// process runs (when PID is set) and the address accepts a TCP connection
// within ctx. A record that fails either check is returned with an error
// wrapping ErrStale.
func Lookup(ctx context.Context, path string) (Record, error) {
	rec, err := Read(path)
	if err != nil {
		return rec, err
	}
	if rec.PID > 0 && !processRuns(rec.PID) {
		return rec, fmt.Errorf("%s (process %d, which listened on %s, has exited): %w", path, rec.PID, rec.Addr, ErrStale)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", rec.Addr)
	if err != nil {
		return rec, fmt.Errorf("%s (nothing accepts connections at %s: %v): %w", path, rec.Addr, err, ErrStale)
	}
	_ = conn.Close()
	return rec, nil
}

// processRuns reports whether a process with that id exists (signal 0); a
// process of another user (EPERM) exists too.
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

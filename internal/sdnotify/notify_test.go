package sdnotify

import (
	"net"
	"path/filepath"
	"testing"
	"time"
)

func listen(t *testing.T) (string, *net.UnixConn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return path, conn
}

func read(t *testing.T, c *net.UnixConn) string {
	t.Helper()
	buf := make([]byte, 4096)
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

func TestSendsDatagrams(t *testing.T) {
	path, conn := listen(t)
	n, err := New(path)
	if err != nil {
		t.Fatal(err)
	}
	if !n.Enabled() {
		t.Fatal("not enabled")
	}
	cases := []struct {
		send func() error
		want string
	}{
		{n.Ready, "READY=1"},
		{n.Watchdog, "WATCHDOG=1"},
		{n.Stopping, "STOPPING=1"},
		{func() error { return n.Status("quoting 3 markets\nnext") }, "STATUS=quoting 3 markets next"},
		{func() error { return n.Reloading(1500 * time.Microsecond) }, "RELOADING=1\nMONOTONIC_USEC=1500"},
		{func() error { return n.ExtendTimeout(90 * time.Second) }, "EXTEND_TIMEOUT_USEC=90000000"},
	}
	for _, c := range cases {
		if err := c.send(); err != nil {
			t.Fatal(err)
		}
		if got := read(t, conn); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if err := n.Send("A=1\nB=2"); err == nil {
		t.Error("a newline inside a state line was accepted")
	}
}

func TestDisabledIsNoop(t *testing.T) {
	n, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	if n.Enabled() {
		t.Fatal("enabled without a socket")
	}
	for _, f := range []func() error{n.Ready, n.Watchdog, n.Stopping} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	var zero *Notifier
	if zero.Enabled() {
		t.Fatal("nil notifier enabled")
	}
}

func TestBadSocket(t *testing.T) {
	if _, err := New("relative/path"); err == nil {
		t.Fatal("relative socket path accepted")
	}
	n, _ := New(filepath.Join(t.TempDir(), "missing.sock"))
	if err := n.Ready(); err == nil {
		t.Fatal("send to a missing socket succeeded")
	}
}

func TestWatchdogInterval(t *testing.T) {
	cases := []struct {
		usec, pid string
		self      int
		want      time.Duration
		err       bool
	}{
		{"", "", 1, 0, false},
		{"20000000", "", 1, 10 * time.Second, false},
		{"20000000", "42", 42, 10 * time.Second, false},
		{"20000000", "43", 42, 0, false},
		{"abc", "", 1, 0, true},
		{"0", "", 1, 0, true},
		{"100", "x", 1, 0, true},
	}
	for _, c := range cases {
		got, err := WatchdogInterval(c.usec, c.pid, c.self)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("WatchdogInterval(%q,%q,%d) = %v, %v; want %v, err=%v", c.usec, c.pid, c.self, got, err, c.want, c.err)
		}
	}
}

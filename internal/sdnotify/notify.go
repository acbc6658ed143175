package sdnotify

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Notifier sends state datagrams to systemd. The zero value (and one built
// without a socket) is a no-op.
type Notifier struct {
	socket string
}

// New returns a Notifier for the socket in notifySocket (the value of
// $NOTIFY_SOCKET; empty disables notification). Abstract sockets start with
// '@'. Only unix datagram sockets are supported.
func New(notifySocket string) (*Notifier, error) {
	if notifySocket == "" {
		return &Notifier{}, nil
	}
	if !strings.HasPrefix(notifySocket, "/") && !strings.HasPrefix(notifySocket, "@") {
		return nil, fmt.Errorf("sdnotify: NOTIFY_SOCKET %q is neither a path nor an abstract socket", notifySocket)
	}
	return &Notifier{socket: notifySocket}, nil
}

// Enabled reports whether notifications go anywhere.
func (n *Notifier) Enabled() bool { return n != nil && n.socket != "" }

// Send writes one datagram of newline-separated assignments.
func (n *Notifier) Send(state ...string) error {
	if !n.Enabled() {
		return nil
	}
	for _, s := range state {
		if strings.ContainsAny(s, "\n") {
			return errors.New("sdnotify: a state line may not contain a newline")
		}
	}
	addr := &net.UnixAddr{Name: n.socket, Net: "unixgram"}
	if strings.HasPrefix(n.socket, "@") {
		addr.Name = "\x00" + n.socket[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, addr)
	if err != nil {
		return fmt.Errorf("sdnotify: dial %s: %w", n.socket, err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(strings.Join(state, "\n"))); err != nil {
		return fmt.Errorf("sdnotify: write: %w", err)
	}
	return nil
}

// Ready tells systemd that start-up is complete.
func (n *Notifier) Ready() error { return n.Send("READY=1") }

// Watchdog pets the watchdog.
func (n *Notifier) Watchdog() error { return n.Send("WATCHDOG=1") }

// Stopping tells systemd that shutdown has begun.
func (n *Notifier) Stopping() error { return n.Send("STOPPING=1") }

// Reloading tells systemd that a configuration reload has begun; the
// MONOTONIC_USEC field is required by Type=notify-reload and harmless
// otherwise. Follow it with Ready when the reload is done.
func (n *Notifier) Reloading(monotonic time.Duration) error {
	return n.Send("RELOADING=1", "MONOTONIC_USEC="+strconv.FormatInt(monotonic.Microseconds(), 10))
}

// ExtendTimeout asks systemd to wait d longer, from now, for the current
// start-up (or reload or stop) to complete: EXTEND_TIMEOUT_USEC (systemd
// 236 and later; older versions ignore it).
func (n *Notifier) ExtendTimeout(d time.Duration) error {
	return n.Send("EXTEND_TIMEOUT_USEC=" + strconv.FormatInt(max(d, 0).Microseconds(), 10))
}

// Status sets the free-form status line shown by systemctl status.
func (n *Notifier) Status(s string) error {
	return n.Send("STATUS=" + strings.ReplaceAll(s, "\n", " "))
}

// WatchdogInterval returns the interval at which the watchdog should be
// petted (half of $WATCHDOG_USEC, as sd_watchdog_enabled(3) recommends), or 0
// when the watchdog is off or addressed to another process. watchdogUsec and
// watchdogPid are the values of $WATCHDOG_USEC and $WATCHDOG_PID; pid is
// os.Getpid().
func WatchdogInterval(watchdogUsec, watchdogPid string, pid int) (time.Duration, error) {
	if watchdogUsec == "" {
		return 0, nil
	}
	if watchdogPid != "" {
		p, err := strconv.Atoi(watchdogPid)
		if err != nil {
			return 0, fmt.Errorf("sdnotify: WATCHDOG_PID %q: %w", watchdogPid, err)
		}
		if p != pid {
			return 0, nil
		}
	}
	us, err := strconv.ParseInt(watchdogUsec, 10, 64)
	if err != nil || us <= 0 {
		return 0, fmt.Errorf("sdnotify: WATCHDOG_USEC %q is not a positive integer", watchdogUsec)
	}
	return time.Duration(us) * time.Microsecond / 2, nil
}

// Package sdnotify speaks systemd's notify protocol (sd_notify(3)): READY=1,
// WATCHDOG=1, STATUS=..., STOPPING=1, RELOADING=1 and EXTEND_TIMEOUT_USEC=...
// datagrams sent to the socket named by $NOTIFY_SOCKET. Outside systemd (no
// $NOTIFY_SOCKET) every call is a no-op, so the daemon can call it
// unconditionally.
//
// The daemon sends READY only after reconciliation and WATCHDOG only while its
// cycles complete, so systemd restarts a process whose loop has stalled.
// While it waits for an exchange it cannot reach at start, it extends the
// start timeout before each wait, so the unit's TimeoutStartSec bounds one
// attempt, not the outage.
package sdnotify

// Package addrfile publishes the address a daemon's listener bound, so that
// another process finds it when the configuration lets the daemon pick a
// free port (metrics.listen = "127.0.0.1:0", as the demo does).
//
// The daemon writes a small JSON record — the address, its process id and
// when it started — atomically (internal/atomicfile) to a file beside its
// journal (<state.path>.addr, PathFor) and, under systemd, in its runtime
// directory ($RUNTIME_DIRECTORY/metrics.addr, RuntimePath); it removes the
// file on a clean shutdown. A reader (mmbot status) uses Lookup: the record,
// checked alive — the process still runs and the address accepts a
// connection — or ErrStale for a file a crashed daemon left behind.
package addrfile

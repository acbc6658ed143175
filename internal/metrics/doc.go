// Package metrics holds the daemon's Prometheus metrics on a registry that
// the caller passes in (never the global one), and serves them together with
// /healthz and /readyz on an address that is loopback by default.
// NewRegistry builds the daemon's whole registry (its metrics plus the
// process's and the Go runtime's); the dashboard and alert rules in
// configs/monitoring use only names it registers, which a test checks.
//
// Health: /healthz answers 200 while the process runs. Readiness: /readyz
// answers 200 only after the journal has been reconciled with the exchange
// and while the kill switch is not tripped; otherwise 503 with the reason.
//
// More paths are passed in as Routes (the daemon's /status document, served
// by JSON from a function that cmd/mmbot supplies), so this package stays a
// leaf that knows nothing of the strategy.
package metrics

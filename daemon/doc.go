// Package daemon is what `mmbot run` is: the quoting daemon of DESIGN.md
// §2, built from a configuration and run until its context ends.
//
//	d, err := daemon.New(cfg, daemon.WithLogger(log), daemon.WithOutput(os.Stdout))
//	...
//	err = d.Run(ctx) // quotes until ctx ends, then cancels everything
//
// Run goes through named phases (phases.go), each of which may leave an
// undo step that runs, in reverse order, when the daemon stops: open the
// exchange (the embedded simulator or the configured URLs, the account and
// its signer), open the journal (and its pruner), connect the client (with
// the rate limits the previous process spent), start metrics, wait for the
// exchange (market selection and the credentials check, retried while the
// exchange cannot be reached), build the loop (venue, kill switch, loop and
// guard), reconcile the journal, then serve until the context ends and shut
// down: cancel every live order and print the summary.
//
// The daemon turns configuration into parts through package assemble, and
// fills the status document of package daemon/status, which `mmbot status`
// decodes and prints. Only cmd/mmbot imports this package
// (internal/archtest). docs/daemon.md describes the loop; docs/operations.md
// runs it under systemd.
//
// The crash points of the crash tests are compiled only with the build tag
// mmbot_crashpoint (crashpoint.go, which names their environment variable);
// a release binary has none.
package daemon

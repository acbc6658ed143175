// Package archtest holds tests that guard the repository's shape; it has no
// code of its own.
//
// The tests check that every package of the module has a package doc comment
// in its doc.go, and that the dependency graph keeps the seams of DESIGN.md
// §2: go-ethereum is imported only by signer; exchange imports nothing of
// ours but internal packages; strategy (the pure package) does no I/O and
// never depends on strategy/loop; strategy, strategy/loop and risk make no
// HTTP calls and know nothing of signer, state or the simulated exchange;
// configs imports only internal/secret. The graph comes from `go list -deps -json ./...` (non-test
// imports); the tests skip with a message when the go command is not on
// PATH.
package archtest

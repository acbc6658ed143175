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
//
// A third test keeps exchange.Fixed the one conversion between decimals and
// the exchange's 6-decimal base units: outside exchange/fixed.go no non-test
// file may call Shift(±6) or decimal.New(v, ±6) (the 6 as a literal or a
// constant of its package) or declare a name with the word fixed, micro,
// micros or pow10, or toUnits/fromUnits, except for a short allow-list whose
// entries must each still match something. It reads the source, so it runs
// without the go command.
package archtest

// Command mmbot is an automated market maker for a prediction-market exchange
// with a central limit order book. It is the one place where the concrete
// parts (exchange client, signer, state store, strategy, simulated exchange,
// backtester) are wired together.
//
// Each subcommand lives in its own file (cmd_<name>.go) and is a cobra
// command built by a function of the process environment; main.go builds
// the tree, prints the help and maps errors to exit statuses.
package main

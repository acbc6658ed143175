// Command mmbot is an automated market maker for a prediction-market exchange
// with a central limit order book. It holds the commands only: each parses
// its flags, loads the configuration, makes one call into the libraries and
// prints the result. What `mmbot run` is lives in package daemon, the
// configuration becomes parts in package assemble, and the status document
// that `mmbot status` prints is package daemon/status.
//
// Each subcommand lives in its own file (cmd_<name>.go) and is a cobra
// command built by a function of the process environment; main.go builds
// the tree, prints the help and maps errors to exit statuses.
package main

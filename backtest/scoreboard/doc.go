// Package scoreboard compares the quote models on named market scenarios
// that anyone can regenerate: `mmbot scoreboard` (docs/scoreboard.md).
//
// A Scenario is a configuration of the simulated exchange (package
// exchange/sim: its markets, seed and order flow) and a duration. Generate
// runs the exchange on its manual clock, as fast as the machine goes, and
// keeps the exchange's books, trades and resolutions as a recording in
// memory (the events `mmbot sim --record` writes). Run replays every
// scenario's recording through every model under each fill model (package
// backtest/replay, the daemon's own loop) and Table writes one Markdown row
// per run.
//
// The models are built by the caller (cmd/mmbot wires them from the
// configuration's defaults) through a Builder, so that this package knows
// nothing of the configuration. Everything is deterministic: fixed seeds,
// a fixed start date, no wall clock, and results gathered in a fixed order
// whatever the number of workers.
package scoreboard

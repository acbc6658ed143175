// Package assemble turns a configuration (configs.Config) into the parts
// that mmbot's commands are built from: the exchange client with its
// limits and retries, the account, the signer and its L2 authenticator, the
// endpoints (configured, from a credentials file, or an embedded simulated
// exchange), the market selection, the strategy parameters, the risk limits
// and kill switch settings, the loop's and the guard's configuration, the
// journal adapter and the rate-limit record that outlives a process.
//
// It is the one place where a configuration key becomes a value of a lower
// package, shared by `mmbot run` (package daemon), the paper run, backtest,
// scoreboard, record and cancel-all, so that each command reads the
// configuration the same way. The name says what it does: it assembles
// parts; it runs nothing and keeps no state beyond what it returns (the
// spent-rate saver, which the caller retires). It sits above strategy,
// exchange, state, risk and the backtest layers and below the daemon and
// cmd/mmbot; none of those lower layers may import it (internal/archtest).
package assemble

// Package risk holds the pre-trade checks and the kill switch that sit between
// the order planner and the signer.
//
// Everything here is pure: no I/O, no goroutines, no clock. The caller passes
// the exposure of the market being quoted, the totals of every other market
// and the current time, and feeds the kill switch with events and "now".
//
// A Checker tests one planned order at a time against Limits: position per
// market and in total (worst-case directional shares and collateral at risk),
// order size and notional, open-order counts, a price collar around fair
// value, self-crossing (our own opposite order on the same token, and the
// complement: BUY YES at p with BUY NO at q and p+q ≥ 1), and a cool-down after
// a fill on the same side. A refused order comes back as a *Rejection whose
// Reason says which check failed; errors.Is(err, ErrRejected) holds for all of
// them.
//
// Fit (and a Fitter, for a market's orders in turn) answers the converse
// question for the checks that depend on an order's size: the largest size
// they accept and the limit that binds. The planner sizes its quotes with it,
// so that quotes shrink within the limits instead of being refused.
//
// A KillSwitch trips on loss or drawdown, consecutive order errors, an error
// rate over a sliding window, a stale book, clock skew, cancels throttled for
// too long, and by Trip from a watcher outside its feeds (Halt by hand; the
// quoting loop's guard with TripStaleLoop and TripStaleQuotes; the loop with
// TripAuth when the exchange refuses the credentials). It latches: once
// tripped it stays tripped, keeping the first reason, until an operator
// calls Reset; the one exception is TripAuth, which replaces any other
// reason (refused credentials make every other remedy moot).
//
// Money is exact. Prices, sizes and limits are decimals; the checks convert
// them to exchange.Fixed, the exchange's 6-decimal base units, with
// exchange.FixedRound, and round against the order whenever a value carries
// more decimals than that: sizes, prices and exposure up (RoundCeil), limits
// and positions held down (RoundFloor); a value beyond the range of Fixed
// saturates. Fair value is a model estimate and comes in as a float64; it is
// converted to base units once per market.
//
// Outcomes are numbered as in package strategy: 0 is YES, 1 is NO.
package risk

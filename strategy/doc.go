// Package strategy turns a snapshot of one market into the orders to cancel
// and place: the market and snapshot types, fair value, the quote models and
// the estimators they read, the liquidity-reward rules, the order planner,
// and Quoter, which runs them for one market at a time.
//
// The pieces here are pure: no I/O, no goroutines, time passed in
// (Snapshot.Now). Running them against an exchange (reading books, signing,
// journaling, sending) is the job of package strategy/loop. A pass over one
// market is
//
//	st.Observe(snap)                          // update the volatility and intensity estimators
//	desired = model.Quote(desired[:0], snap, st) // float64 prices in (0,1), sizes in shares
//	sizes cut to the risk limits              // risk.Checker.Fitter, nearest levels first
//	plan, _ = planner.Plan(desired, snap, tol, budget)
//	risk checks on plan.Places                // package risk
//
// and Quoter.Pass runs the last four steps with reused buffers. Wrappers
// compose around any model: WithMinSize, WithRewards, WithAdverse (the
// adverse-selection rules, reading the facts MarketState.Adverse collects:
// prints through our prices, fair-value jumps, our fills and their
// markouts) and WithEndDate, outermost.
//
// Outcomes: every market has two outcome tokens, YES (index 0) and NO (index
// 1), whose fair prices sum to 1. A BUY of NO at q is the ask on YES at 1−q,
// so a two-sided market needs no inventory: models quote BUY orders on both
// tokens. With the model's AllowSell (sell first) a side the account's
// holding covers is a SELL of the held token instead, and only the rest is
// a BUY of the other; a pair held on both sides is sold on both. "YES space" maps every order to a bid or an ask
// on YES (BUY YES and SELL NO are bids; SELL YES and BUY NO are asks).
//
// Numbers: models compute in float64. The planner is the one boundary where
// prices and sizes become exact decimals: it rounds bids down and asks up
// onto the tick grid, sizes down to 2 decimals, applies the minimum size, the
// [tick, 1−tick] bounds and the no-cross rules, all in integer tick and
// centi-share units. The formulas and their sources are in
// docs/strategies.md.
//
// Reuse: Model.Quote appends to a caller-owned slice; Planner and Quoter keep
// scratch buffers, and the slices in the Plan they return are valid until
// their next call. A steady-state pass (no order to change) allocates
// nothing.
package strategy

// Package accounting turns what happened in a run (books, quotes, orders,
// cancels, fills, rewards, resolutions) into its Results: cash, positions
// and fees, PnL split into spread and inventory parts, drawdown, Sharpe and
// Sortino, fill ratios and queue waits, markouts after 1 s, 10 s and 60 s,
// peak order and cancel rates, and a time series sampled at a fixed
// interval. An Accumulator collects one run; HeadlineOf reduces Results to
// the figures that compare runs.
//
// A run is a replay (the fill model's fills against recorded books) or a
// period of the live order journal (package ledger: the fills as the
// exchange charged them, OnFillFee; positions carried into the period,
// OnOpen; marks without books, OnMark). RunInfo.Source tells them apart.
//
// Cash, positions and fees are decimal.Decimal; floats appear only in
// statistics. Tokens are reported in sorted order, so the same inputs give
// the same Results. A run keeps a row per sampling interval and a record
// per fill, nothing per book event.
package accounting

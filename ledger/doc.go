// Package ledger reads the order journal (package state) back into
// accounting.Results, so that the live fills of a period are counted by the
// backtest's own accounting (package backtest/accounting) and shown by its
// reports (package backtest/report): the live report and the backtest
// report are the same code.
//
// Load reads, in one consistent view of the journal, every fill up to the
// period's end and the orders sent or canceled in the period; it keeps a
// digest of each order, not the order. Results then feeds an Accumulator:
//
//   - positions held at the period's start are carried in (OnOpen) with
//     their cost basis from the journal, valued at their last fill price,
//     so the period's PnL counts only what happened in it, and realized PnL
//     is measured against what the shares cost;
//   - each fill of the period is booked with the fee the journal recorded
//     (OnFillFee) and marks its token at its price (OnMark, "last fill");
//   - orders sent in the period count as placed (fill ratio, peak rates
//     against the caps), orders the journal recorded as canceled in the
//     period as cancels, at the time it recorded them;
//   - at the end, open positions may be marked at the exchange's current
//     mid (Options.Mids), which the caller reads: this package does no I/O
//     besides the journal.
//
// The journal holds no books, so the figures measured against the mid
// (spread and inventory PnL, markouts, reward share) and queue waits are
// not available; the reports of a journal (RunInfo.Source = SourceJournal)
// leave them out. Resolution payouts are not journaled either: a resolved
// market's position is marked at its last fill price, or at whatever mid
// the caller supplies.
//
// Money is exact (decimal). Realized PnL follows the journal's own
// average-cost rule (state.Position), so over a period that starts before
// the first fill it equals the realized PnL of the journal's positions.
package ledger

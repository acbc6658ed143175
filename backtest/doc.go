// Package backtest holds the parts of mmbot's backtester that do not depend on
// the strategy loop: the recording format (a versioned, gzip-compressed JSON
// Lines stream of book snapshots, trades and market metadata) with its
// streaming Reader and atomic Writer, importers for the exchange's public
// websocket message shapes, a queue-aware fill model (Matcher) with a latency
// model, fees and a reward-score seam, and the results side: an Accumulator of
// metrics and the text, CSV and self-contained HTML reports.
//
// Contract and caveats:
//
//   - Money is exact. Prices and sizes in the Matcher are Fixed (an int64
//     count of millionths, the exchange's 6-decimal base unit); cash,
//     positions and fees in the Accumulator are decimal.Decimal. Floats appear
//     only in statistics (Sharpe, markouts, queue-split probabilities).
//   - Everything is deterministic: randomness (latency draws, the sampled
//     queue model) comes from a seeded PCG source owned by each Matcher, and
//     reports iterate tokens in sorted order.
//   - The Matcher's OnBook, OnTrade and Advance do not allocate in the steady
//     state. The []Fill they return is owned by the Matcher and valid only
//     until its next call.
//   - A Reader holds one line in memory at a time: reading a recording uses
//     memory independent of its length.
//   - The replay and paper venues (which need the strategy package's Venue
//     interface) are built on top of this package later; docs/backtesting.md
//     marks the parts that await them.
package backtest

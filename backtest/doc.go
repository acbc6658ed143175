// Package backtest is mmbot's backtester and paper-trading venue: the
// recording format (a versioned, gzip-compressed JSON Lines stream of book
// snapshots, trades and market metadata) with its streaming Reader and
// atomic Writer, importers for the exchange's public websocket message
// shapes, a queue-aware fill model (Matcher) with a latency model, fees and
// reward scoring, the results side (an Accumulator of metrics and the text,
// CSV, JSON and self-contained HTML reports), and the venues the strategy
// loop runs against without an exchange: the replay venue (Replay, the
// loop's Venue and Clock over a recording; Run drives a loop.Loop
// through it, RunSweep runs a parameter grid in parallel) and the paper
// venue (live reads, virtual orders).
//
// Contract and caveats:
//
//   - Money is exact. Prices and sizes in the Matcher are Fixed (an int64
//     count of millionths, the exchange's 6-decimal base unit); cash,
//     positions and fees in the Accumulator are decimal.Decimal. Floats appear
//     only in statistics (Sharpe, markouts, queue-split probabilities).
//   - Everything is deterministic: randomness (latency draws, the sampled
//     queue model) comes from seeded PCG sources, the replay runs on
//     simulated time, and reports iterate tokens in sorted order. The same
//     recording, configuration and seed give the same bytes.
//   - The Matcher's OnBook, OnTrade and Advance do not allocate in the steady
//     state. The []Fill they return is owned by the Matcher and valid only
//     until its next call.
//   - A Reader holds one line in memory at a time, and the Replay a state
//     bounded by the data latency and the open orders: replaying a recording
//     uses memory independent of its length (the results keep a row per
//     sampling interval and a record per fill). Events from a Reader are read-only: the
//     replay shares them.
//   - The backtest signs nothing: Signer makes deterministic order hashes
//     (OrderHash) and the exchange's amounts, without secp256k1.
package backtest

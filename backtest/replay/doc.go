// Package replay backtests the strategy on a recording: Replay is the
// strategy loop's Venue and Clock over a stream of recorded events, with
// orders matched by the fill model, data and order latencies, the
// exchange's rate limits and the market's tick, minimum size and
// resolution; Run drives a strategy loop through it and returns the run's
// accounting results. ScanMarkets finds the markets of a recording, and
// Prefetch decodes one on its own goroutine.
//
// Contract and caveats:
//
//   - The replay runs on simulated time and is deterministic: the same
//     recording, configuration and seed give the same results.
//   - Memory is bounded by the data latency and the open orders, not by
//     the recording's length (the results keep a row per sampling interval
//     and a record per fill).
//   - The replay signs nothing: Signer makes deterministic order hashes
//     (OrderHash) and the exchange's amounts, without secp256k1; MemJournal
//     is the loop's journal in memory.
package replay

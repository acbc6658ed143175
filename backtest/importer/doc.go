// Package importer converts captures of the exchange's public market
// channel (book, price_change in its three shapes, last_trade_price,
// tick_size_change and market_resolved messages; JSON Lines, JSON arrays,
// both mixed in one file, gzip) into recording events (mmbot import): it
// keeps a book per token from snapshots and deltas, repairs the crossed
// books a match sent as several messages leaves between them, adds the
// market terms the channel lacks (a catalog snapshot, ReadCatalog, which
// skips and names the listing's placeholder markets, or
// options), can derive a binary market's missing outcome from the other
// (Options.Complement), and re-orders events within a bounded window by
// time and, at one time, meta, trades, books (recording.SameTimeRank).
//
// Contract and caveats:
//
//   - Nothing is dropped silently: every message is imported, skipped and
//     counted by reason (Stats.Skipped), or an *Error naming the file, the
//     message and the byte where it starts.
//   - Memory is bounded by the reorder window and the number of tokens, not
//     by the length of the input: arrays are streamed element by element.
//   - Money is exact: prices and sizes are decimals checked to fit the
//     recording's 6 decimal places; a mirrored price is 1 − p exactly.
//   - ImportFiles writes through a recording.Writer, so a failed import
//     leaves no file.
package importer

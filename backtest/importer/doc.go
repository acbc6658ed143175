// Package importer converts captures of the exchange's public market
// channel (book, price_change, last_trade_price, tick_size_change and
// market_resolved messages, as JSON Lines, JSON arrays or gzip) into
// recording events: it keeps a book per token from snapshots and deltas,
// re-orders events within a bounded window, and counts every message it
// skips by reason.
//
// Memory is bounded by the reorder window and the number of tokens, not by
// the length of the input.
package importer

// Package recording is mmbot's recording format: book snapshots, trades and
// market metadata (Event) in one of two versions, read by a streaming
// Reader that detects the version and written by a Writer that commits
// atomically (temporary file, fsync, rename). Version 2 (.mmrec, the
// default) is binary: a header, then zstd-compressed, checksummed blocks of
// varint-encoded events with a per-block string table, each book an edit of
// its token's previous one, and an index at the end. Version 1 (.jsonl.gz)
// is gzip-compressed JSON Lines. Convert copies either into either. The
// package also holds what every producer of recordings shares: event
// validation, the book filter and trade de-duplication of polled data, and
// books in exact 6-decimal units (FixedBook) for the fill model.
//
// Contract and caveats:
//
//   - A Reader holds one block (version 2) or one line (version 1) in
//     memory at a time: reading a recording uses memory independent of its
//     length. Events from a Reader are read-only: consumers share them, and
//     version 2 books share unchanged sides with the previous book of their
//     token.
//   - Decoding is strict: corrupt or truncated files, values off the
//     6-decimal grid and malformed events are errors that name the line, or
//     the block, its offset and the event, never silent defaults nor panics.
//     docs/data-format.md is the format's specification.
//   - Money is exact: prices and sizes are decimal.Decimal on the wire types
//     and exchange.Fixed in FixedBook and in the version 2 encoding; no
//     float64.
package recording

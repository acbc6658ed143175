// Package recording is mmbot's recording format: a versioned,
// gzip-compressed JSON Lines stream of book snapshots, trades and market
// metadata (Event), with a header line, read by a streaming Reader and
// written by a Writer that commits atomically (temporary file, fsync,
// rename). It also holds what every producer of recordings shares: event
// validation, the book filter and trade de-duplication of polled data, and
// books in exact 6-decimal units (FixedBook) for the fill model.
//
// Contract and caveats:
//
//   - A Reader holds one line in memory at a time: reading a recording uses
//     memory independent of its length. Events from a Reader are read-only
//     (consumers share them).
//   - Decoding is strict: unknown fields, values off the 6-decimal grid and
//     out-of-order events are errors that name the line, never silent
//     defaults. docs/data-format.md is the format's specification.
//   - Money is exact: prices and sizes are decimal.Decimal on the wire types
//     and exchange.Fixed in FixedBook; no float64.
package recording

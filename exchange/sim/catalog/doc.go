// Package catalog is the simulated exchange's universe: events, binary
// markets, series and tags. Generate builds one deterministically from a
// seed (the same seed and count give the same ids, titles and terms; dates
// are relative to a base time); Load reads one from JSON and Save writes one.
//
// Each market has two outcome tokens with decimal token ids, a 0x condition
// id, a tick size from {0.1, 0.01, 0.001, 0.0001}, a minimum order size,
// reward terms (max spread in cents, minimum size in shares, a daily rate),
// an initial fair price for the simulated order flow, and optionally the
// neg_risk flag (set on every market of an event with three or more
// mutually exclusive markets). Every event has a creator; the catalog API's
// creator parameter scopes results to it.
package catalog

// Package exchange holds the domain types of the prediction-market exchange
// (data API, catalog API and order-book API) and an HTTP client for all three
// areas, with client-side rate limits, retries for idempotent reads and typed
// errors.
//
// Money is exact: prices, sizes and amounts are shopspring/decimal values or
// strings of integer base units, never float64. Order-book books are decoded
// as sent; call OrderBook.Normalize to get bids best-first (descending) and
// asks best-first (ascending).
//
// The package imports nothing of mmbot's own. Authenticated calls take their
// headers from an Authenticator, which package signer implements.
package exchange

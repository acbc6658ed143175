// Package exchange holds the domain types of the prediction-market exchange
// (data API, catalog API and order-book API) and an HTTP client for all three
// areas, with client-side rate limits, retries for idempotent reads and typed
// errors. docs/protocol.md describes the wire conventions and every choice
// the package makes where the service interface is silent.
//
// Money is exact: prices, sizes and amounts are shopspring/decimal values,
// Number (a decimal that travels as a JSON number), or strings of integer
// base units — never float64. Fixed is the one type for those base units (an
// int64 of millionths): the module converts between decimals and base units
// with FixedFromDecimal, FixedRound (in a stated Rounding mode) and
// Fixed.Decimal, and multiplies and divides them with Fixed.Mul and Fixed.Div. Order-book books are decoded as sent; call
// OrderBook.Normalize to get bids best-first (descending) and asks
// best-first (ascending).
//
// The client (NewClient) validates every request parameter against the
// spec's rules before sending (*ParamError), keeps under every cap of the
// spec's limits table with token buckets driven by an injected Clock
// (failing fast with a *WaitError when a wait would pass the context's
// deadline; WithSpent starts the buckets from what a previous process's
// Spent records, so that the caps also hold across restarts), retries
// idempotent reads after 5xx, 429 and network failures
// with full-jitter backoff, and never retries POST /orders or DELETE /order.
// Errors from the server are *APIError values that match the sentinels
// (ErrNotFound, ErrRateLimited, ...) with errors.Is. List endpoints have
// iterators (iter.Seq2) that walk cursor or offset pages to the end.
//
// A hostile or broken server is bounded: a Retry-After longer than
// WithMaxRetryAfter (default 1 min) is cut to it; each endpoint reads at
// most what its largest honest answer needs (MaxAnswerBytes), a longer 2xx
// answer being a *BodyTooLargeError, refused unread; and ValidateBook and
// ValidateMarket refuse a book or market terms that break a rule
// (*ValidationError, a stable Reason per rule) before anyone trades on
// them.
//
// Responses are read in the spec's shape and, where it differs, in the live
// exchange's (docs/protocol.md, "Live shapes"): an order read unwrapped and
// in snake_case, builder-trade times in Unix seconds, token ids as an array.
// A decoded value that lacks what its caller needs (an order without id or
// status, an unknown status) is a *FieldError naming the field, never an
// empty value.
//
// The package imports nothing of mmbot's own. Authenticated calls take their
// headers from an Authenticator, which package signer implements. Tests and
// backtests drive time with package exchange/clocktest.
package exchange

// Package logging builds the daemon's zerolog logger: JSON lines when the
// output is not a terminal (or format = json), zerolog's console writer when
// it is (or format = console). Every line carries a "time" field in RFC 3339
// with milliseconds, UTC, from an injectable clock.
//
// New sets no zerolog globals: the time field is written by a hook, and the
// console writer formats it itself, so two loggers built with different
// options never interfere. Secrets stay out of the log by their type
// (internal/secret.Value prints as [redacted]); a test logs a whole
// configs.Config with every secret set to prove it.
package logging

// Package status is the status document of a running daemon: what GET
// /status on its metrics listener serves, what `mmbot status` decodes and
// prints, and the live table of `mmbot run --status on`.
//
// The daemon (package daemon) fills a [Status]; the command decodes the
// same type, so the two cannot drift apart. This is a leaf: it imports only
// the standard library and shopspring/decimal (to format money), nothing of
// mmbot's, so that any reader of the document can import it.
// docs/operations.md ("Status of a running daemon") describes every field;
// a change that renames or removes one, or changes its meaning, bumps
// [Schema].
package status

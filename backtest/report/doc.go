// Package report renders accounting results for people and programs: the
// text summary, the CSV time series, the JSON headline, the self-contained
// HTML report with its SVG charts (no script, no external resource), and
// the table, CSV and JSON of a sweep. SaveReports writes a run's files into
// a directory, each atomically.
//
// A run read from the live order journal (accounting.SourceJournal,
// package ledger) is rendered by the same writers in the same look, with
// what a journal can give: the marks in place of the mid and our quotes, a
// table per market and token (WriteTableCSV as CSV), the fills with their
// fees (WriteFillsCSV), and a note in place of the figures that need the
// book's mid.
//
// The output is deterministic: the same Results give the same bytes (the
// golden files under testdata pin them).
package report

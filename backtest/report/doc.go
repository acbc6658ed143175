// Package report renders accounting results for people and programs: the
// text summary, the CSV time series, the JSON headline, the self-contained
// HTML report with its SVG charts (no script, no external resource), and
// the table, CSV and JSON of a sweep. SaveReports writes a run's files into
// a directory, each atomically.
//
// The output is deterministic: the same Results give the same bytes (the
// golden files under testdata pin them).
package report

// Package export writes recordings and backtest results as Parquet files
// that pandas, polars and DuckDB open directly; docs/data-format.md
// ("Parquet export") is the schema, column by column.
//
// Recording streams a recording (package recording) into books.parquet
// (one row per book level), trades.parquet and meta.parquet; a
// RecordingWriter does the same event by event. Results writes a run's
// fills.parquet, series.parquet and totals.parquet, and Sweep a sweep's
// sweep.parquet.
//
// Money is exact: prices and sizes are DECIMAL(18,6) stored as INT64, the
// exchange.Fixed value in millionths; amounts the accounting computes
// (cash, fees, PnL, mids), which can have more decimal places, are
// DECIMAL(38,18). A value a column cannot hold exactly fails the export
// (ErrNotRepresentable); nothing is rounded. Statistics (Sharpe, ratios)
// are DOUBLE, null when not finite.
//
// Memory is flat: rows are buffered up to Options.RowGroupRows and then
// written out as a row group. Every file is written to a temporary file
// and renamed into place when complete (internal/atomicfile), so a failed
// or cancelled export leaves no partial file.
package export

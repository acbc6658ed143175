package main

import (
	"fmt"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/backtest/export"
)

const exportLong = `Writes mmbot data as Parquet files that pandas, polars and DuckDB open
directly. The columns, their types and units are in docs/data-format.md
("Parquet export"); prices and sizes are exact decimals, DECIMAL(18,6).

A backtest's results are exported by the backtest itself: mmbot backtest
--out DIR --parquet writes fills.parquet, series.parquet and totals.parquet
(sweep.parquet for a sweep) next to its other reports.`

const exportExample = `  mmbot export recording rec.jsonl.gz rec-parquet/
  duckdb -c "select token, count(*) from 'rec-parquet/trades.parquet' group by token"`

// newExportCmd is "mmbot export", the parent of "export recording".
func newExportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "export recording IN OUTDIR",
		Short:   "write a recording as Parquet files (export recording)",
		Long:    exportLong,
		Example: exportExample,
		Args:    unknownCommand,
		// export is a group: its arguments are subcommand names.
		SuggestionsMinimumDistance: suggestDistance,
		RunE: func(*cobra.Command, []string) error {
			return usagef("export needs a subcommand: recording")
		},
	}
	cmd.AddCommand(newExportRecordingCmd(e))
	return cmd
}

const exportRecordingLong = `Reads a recording (docs/data-format.md) and writes three Parquet files into
OUTDIR, creating it if needed:

  books.parquet   one row per book level: time, token, market, side
                  ("bid" or "ask"), level (0 = best), price, size, tick
                  and minimum size; an empty book is one row without level
  trades.parquet  one row per trade print
  meta.parquet    one row per metadata change

Every row has seq, the event's index in the recording, so the three files
can be put back in recording order. The recording is streamed: memory does
not grow with its length. Each file appears complete or not at all; an
error or SIGINT while reading leaves none of them behind.`

const exportRecordingExample = `  mmbot export recording rec.jsonl.gz rec-parquet/
  mmbot export recording --row-group-rows 16384 rec.jsonl.gz out/`

func newExportRecordingCmd(e *env) *cobra.Command {
	var opt export.Options
	cmd := &cobra.Command{
		Use:     "recording IN OUTDIR",
		Short:   "write a recording's books, trades and metadata as Parquet",
		Long:    exportRecordingLong,
		Example: exportRecordingExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("want IN and OUTDIR, got %d arguments", len(args))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&opt.RowGroupRows, "row-group-rows", export.DefaultRowGroupRows, "rows per Parquet row group (bounds the memory used)")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		if opt.RowGroupRows < 1 {
			return usagef("--row-group-rows must be at least 1")
		}
		ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		n, err := export.Recording(ctx, args[0], args[1], opt)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%d events: %d book levels (%d books, %d empty) in %s, %d trades in %s, %d meta in %s\n",
			n.Events, n.Levels, n.Books, n.EmptyBooks, filepath.Join(args[1], export.BooksFile),
			n.Trades, filepath.Join(args[1], export.TradesFile), n.Metas, filepath.Join(args[1], export.MetaFile))
		return nil
	}
	return cmd
}

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/export"
	"github.com/mmbot/mmbot/backtest/report"
	"github.com/mmbot/mmbot/backtest/sweep"
	"github.com/mmbot/mmbot/internal/atomicfile"
)

// writeBacktest prints one run's summary (or JSON) and writes the reports.
func writeBacktest(w io.Writer, bf *backtestFlags, res *accounting.Results) error {
	if bf.out != "" {
		if err := os.MkdirAll(bf.out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if err := report.SaveReports(bf.out, res); err != nil {
			return err
		}
		if bf.parquet {
			if err := export.Results(bf.out, res, export.Options{}); err != nil {
				return fmt.Errorf("--parquet: %w", err)
			}
		}
	}
	if bf.json {
		return report.WriteJSON(w, res)
	}
	if err := report.WriteSummary(w, res); err != nil {
		return err
	}
	if bf.out != "" {
		fmt.Fprintf(w, "\nreports: %s, %s, %s\n", filepath.Join(bf.out, "summary.txt"), filepath.Join(bf.out, "series.csv"),
			filepath.Join(bf.out, "report.html"))
		if bf.parquet {
			fmt.Fprintf(w, "parquet: %s, %s, %s\n", filepath.Join(bf.out, export.FillsFile), filepath.Join(bf.out, export.SeriesFile),
				filepath.Join(bf.out, export.TotalsFile))
		}
	}
	return nil
}

// writeSweep prints the sweep's rows (the table, or JSON with asJSON)
// and, with out, writes sweep.csv, sweep.txt and sweep.json there (the
// JSON as --json prints it), and sweep.parquet with parquet. It fails when
// a combination failed.
func writeSweep(w io.Writer, out string, asJSON, parquet bool, keys []string, rows []sweep.Row) error {
	if out != "" {
		err := saveSweepTables(out, "sweep", keys, rows)
		if err == nil {
			err = atomicfile.WriteFile(filepath.Join(out, "sweep.json"), 0o644, func(w io.Writer) error { return report.WriteSweepJSON(w, rows) })
		}
		if err == nil && parquet {
			err = export.Sweep(filepath.Join(out, export.SweepFile), keys, rows, export.Options{})
		}
		if err != nil {
			return fmt.Errorf("sweep report: %w", err)
		}
	}
	var err error
	if asJSON {
		err = report.WriteSweepJSON(w, rows)
	} else {
		err = report.WriteSweepTable(w, keys, rows)
	}
	if err != nil {
		return err
	}
	return sweepFailures(rows)
}

// saveSweepTables creates dir and writes base.csv and base.txt into it.
func saveSweepTables(dir, base string, keys []string, rows []sweep.Row) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	err := atomicfile.WriteFile(filepath.Join(dir, base+".csv"), 0o644, func(w io.Writer) error { return report.WriteSweepCSV(w, keys, rows) })
	if err == nil {
		err = atomicfile.WriteFile(filepath.Join(dir, base+".txt"), 0o644, func(w io.Writer) error { return report.WriteSweepTable(w, keys, rows) })
	}
	return err
}

// sweepFailures is an error when a combination failed.
func sweepFailures(rows []sweep.Row) error {
	failed := 0
	for _, r := range rows {
		if r.Err != nil {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs failed", failed, len(rows))
	}
	return nil
}

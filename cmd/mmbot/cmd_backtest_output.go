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

// writeSweep prints the sweep's rows (or JSON) and writes sweep.csv and
// sweep.txt. It fails when a combination failed.
func writeSweep(w io.Writer, bf *backtestFlags, params []sweep.Param, rows []sweep.Row) error {
	keys := make([]string, len(params))
	for i, p := range params {
		keys[i] = p.Key
	}
	if bf.out != "" {
		if err := os.MkdirAll(bf.out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		err := atomicfile.WriteFile(filepath.Join(bf.out, "sweep.csv"), 0o644, func(w io.Writer) error { return report.WriteSweepCSV(w, keys, rows) })
		if err == nil {
			err = atomicfile.WriteFile(filepath.Join(bf.out, "sweep.txt"), 0o644, func(w io.Writer) error { return report.WriteSweepTable(w, keys, rows) })
		}
		if err == nil && bf.parquet {
			err = export.Sweep(filepath.Join(bf.out, export.SweepFile), keys, rows, export.Options{})
		}
		if err != nil {
			return fmt.Errorf("sweep report: %w", err)
		}
	}
	var err error
	if bf.json {
		err = report.WriteSweepJSON(w, rows)
	} else {
		err = report.WriteSweepTable(w, keys, rows)
	}
	if err != nil {
		return err
	}
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

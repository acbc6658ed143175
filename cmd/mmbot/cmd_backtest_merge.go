package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/backtest/report"
	"github.com/mmbot/mmbot/backtest/sweep"
)

const backtestMergeLong = `Joins the shards of one sweep (mmbot backtest --sweep ... --shard i/n) into
what the whole sweep run in one process gives: it prints the table (or,
with --json, the JSON), and with --out writes sweep.csv, sweep.txt and
sweep.json there, byte for byte the files of the run in one process.

Each argument is a directory, of which every sweep-shard-*-of-*.json is
read, or one shard's JSON (the file, or what --shard --json printed). It
refuses shards of different sweeps (another grid, recording, configuration,
seed, build of mmbot or number of shards), a missing shard and a shard
given twice. As the sweep does, it exits 1 when a combination failed, after
writing the rows.`

const backtestMergeExample = `  mmbot backtest merge sweep/ --out sweep/
  mmbot backtest merge node1/sweep node2/sweep --out merged/
  mmbot backtest merge shard-0.json shard-1.json shard-2.json --json > sweep.json`

func newBacktestMergeCmd(e *env) *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "merge DIR|FILE... [flags]",
		Short:   "join the shards of a sweep into the whole sweep's table, CSV and JSON",
		Long:    backtestMergeLong,
		Example: backtestMergeExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("no shards: give the directories of the shards' --out, or their JSON files")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&out, "out", "", "write sweep.csv, sweep.txt and sweep.json into this `dir`")
	fs.BoolVar(&asJSON, "json", false, "print JSON instead of the table")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		files, err := shardFiles(args)
		if err != nil {
			return err
		}
		parts := make([]sweep.Part, len(files))
		for i, name := range files {
			if parts[i], err = readShard(name); err != nil {
				return err
			}
		}
		id, rows, err := sweep.Merge(parts)
		if err != nil {
			return err
		}
		return writeSweep(e.stdout, out, asJSON, false, id.Keys(), rows)
	}
	return cmd
}

// shardFiles lists the shard files that args name: a file as it is, a
// directory as the sweep-shard-*-of-*.json it holds, in name order.
func shardFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("shard: %w", err)
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, "sweep-shard-*-of-*.json"))
		if err != nil {
			return nil, fmt.Errorf("shard: %w", err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no sweep-shard-*-of-*.json: not the --out of a shard of a sweep", a)
		}
		files = append(files, found...)
	}
	return files, nil
}

func readShard(name string) (sweep.Part, error) {
	f, err := os.Open(name)
	if err != nil {
		return sweep.Part{}, fmt.Errorf("shard: %w", err)
	}
	defer f.Close()
	return report.ReadSweepShard(f, name)
}

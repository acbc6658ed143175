package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/internal/atomicfile"
	"github.com/mmbot/mmbot/state"
)

const journalLong = `Maintains the state journal. The daemon keeps it bounded by itself: a
final order with nothing matched is removed state.retention after it
became final (orders with fills, fills and positions stay). bbolt reuses
the space it frees but never gives it back to the filesystem: compact does.

  compact   rewrite the journal densely into a new file and swap it in
            atomically; refused while a daemon holds the journal
  export    write the orders and fills of a period as CSV`

const journalExample = `  mmbot journal compact -c /etc/mmbot/mmbot.toml    # with the daemon stopped
  mmbot journal export --state /var/lib/mmbot/mmbot.db --from 7d --out export/
  mmbot journal export -c mmbot.toml --from 2026-03-01 --to 2026-03-02`

// newJournalCmd is "mmbot journal", the journal's maintenance commands; now
// reads the clock (export's default end, and durations before now).
func newJournalCmd(e *env, now func() time.Time) *cobra.Command {
	cmd := &cobra.Command{
		Use:                        "journal compact|export [flags]",
		Short:                      "compact the state journal; export its orders and fills as CSV",
		Long:                       journalLong,
		Example:                    journalExample,
		Args:                       unknownCommand,
		SuggestionsMinimumDistance: suggestDistance,
		RunE: func(*cobra.Command, []string) error {
			return usagef("journal needs a subcommand: compact or export")
		},
	}
	cmd.AddCommand(newJournalCompactCmd(e), newJournalExportCmd(e, now))
	return cmd
}

// journalPath resolves the journal of --state or -c (--state wins).
func journalPath(e *env, configPath, statePath string) (string, error) {
	if statePath != "" {
		return statePath, nil
	}
	if configPath == "" {
		return "", usagef("--state PATH or -c CONFIG is required")
	}
	cfg, err := configs.Load(configs.LoadOptions{File: configPath, Environ: e.environ})
	if err != nil {
		return "", fmt.Errorf("configuration: %w", err)
	}
	return cfg.State.Path, nil
}

const journalCompactLong = `Rewrites the journal with bbolt's compaction into a new file beside it
(every record copied densely, the free pages left behind), syncs it to
disk and renames it over the journal: at any instant the path holds the old
journal or the new one, whole. The journal's lock is held throughout, so
compact fails, changing nothing, while a daemon runs on the file: stop it
first. Free disk space for a second copy of the journal is needed.`

// compactLockTimeout is how long compact waits for the journal's lock.
const compactLockTimeout = 2 * time.Second

func newJournalCompactCmd(e *env) *cobra.Command {
	var configPath, statePath string
	cmd := &cobra.Command{
		Use:   "compact (--state PATH | -c mmbot.toml)",
		Short: "rewrite the journal densely and swap it in atomically (daemon stopped)",
		Long:  journalCompactLong,
		Example: `  mmbot journal compact --state /var/lib/mmbot/mmbot.db
  mmbot journal compact -c /etc/mmbot/mmbot.toml`,
		Args: noArgs,
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "TOML config `file` whose state.path is the journal")
	cmd.Flags().StringVar(&statePath, "state", "", "state journal `path`")
	cmd.RunE = func(*cobra.Command, []string) error {
		path, err := journalPath(e, configPath, statePath)
		if err != nil {
			return err
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no journal at %s", path)
		}
		res, err := state.Compact(path, state.Options{LockTimeout: compactLockTimeout})
		if errors.Is(err, state.ErrLocked) {
			return fmt.Errorf("%w\nstop the daemon using %s, then compact again", err, path)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "compacted %s: %s -> %s\n", path, megabytes(res.Before), megabytes(res.After))
		return nil
	}
	return cmd
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

const journalExportLong = `Writes the journal's orders created in the period, and its fills in the
period, as two CSV files in --out (default: the current directory):
orders.csv and fills.csv, each written atomically. docs/data-format.md
describes their columns. The period is [--from, --to): --from defaults to
the beginning, --to to now; both take an RFC 3339 time, a date (midnight
UTC) or a duration before now (90m, 24h, 7d).

The journal is opened read-only; while the daemon runs the export reads a
consistent copy of its last commit. Final orders with nothing matched
older than state.retention have been pruned and are not exported; every
order with a fill, and every fill, is.`

// exportLockTimeout bounds how long export tries to read the journal.
const exportLockTimeout = 2 * time.Second

type journalExportFlags struct {
	configPath, statePath string
	from, to, out         string
}

func newJournalExportCmd(e *env, now func() time.Time) *cobra.Command {
	var f journalExportFlags
	cmd := &cobra.Command{
		Use:   "export (--state PATH | -c mmbot.toml) [--from T] [--to T] [--out DIR]",
		Short: "write the orders and fills of a period as CSV",
		Long:  journalExportLong,
		Example: `  mmbot journal export --state mmbot.db --from 24h --out export/
  mmbot journal export -c mmbot.toml --from 2026-03-01 --to 2026-03-08`,
		Args: noArgs,
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.configPath, "config", "c", "", "TOML config `file` whose state.path is the journal")
	fl.StringVar(&f.statePath, "state", "", "state journal `path`")
	fl.StringVar(&f.from, "from", "", "start of the period (`time`: RFC 3339, a date, or a duration before now; default: the beginning)")
	fl.StringVar(&f.to, "to", "", "end of the period, excluded (`time`; default now)")
	fl.StringVar(&f.out, "out", ".", "`dir` to write orders.csv and fills.csv into")
	cmd.RunE = func(*cobra.Command, []string) error { return runJournalExport(e, f, now()) }
	return cmd
}

func runJournalExport(e *env, f journalExportFlags, now time.Time) error {
	var from time.Time
	to := now
	var err error
	if f.from != "" {
		if from, err = parseWhen(f.from, now); err != nil {
			return usagef("--from: %v", err)
		}
	}
	if f.to != "" {
		if to, err = parseWhen(f.to, now); err != nil {
			return usagef("--to: %v", err)
		}
	}
	if !from.IsZero() && !from.Before(to) {
		return usagef("the period %s to %s ends before it starts", from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	}
	path, err := journalPath(e, f.configPath, f.statePath)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no journal at %s", path)
	}
	st, err := state.Open(path, state.Options{ReadOnly: true, LockTimeout: exportLockTimeout})
	if err != nil {
		return err
	}
	defer st.Close()
	var orders []state.Order
	var fills []state.Fill
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	err = st.View(func(tx *state.Tx) error {
		err := tx.EachOrder(state.OrderFilter{}, func(o *state.Order) error {
			if in(o.CreatedAt) {
				orders = append(orders, *o)
			}
			return nil
		})
		if err != nil {
			return err
		}
		errEnd := errors.New("end of period")
		err = tx.EachFill(from, func(fl *state.Fill) error {
			if !fl.Time.Before(to) {
				return errEnd
			}
			fills = append(fills, *fl)
			return nil
		})
		if errors.Is(err, errEnd) {
			err = nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	slices.SortFunc(orders, func(a, b state.Order) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	ordersPath, fillsPath := filepath.Join(f.out, "orders.csv"), filepath.Join(f.out, "fills.csv")
	if err := atomicfile.WriteFile(ordersPath, 0o644, func(w io.Writer) error { return writeOrdersCSV(w, orders) }); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(fillsPath, 0o644, func(w io.Writer) error { return writeFillsCSV(w, fills) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d orders to %s, %d fills to %s\n", len(orders), ordersPath, len(fills), fillsPath)
	return nil
}

// csvTime is a time column: RFC 3339 in UTC with nanoseconds, empty when
// unset.
func csvTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

var ordersCSVHeader = []string{"created_at", "hash", "exchange_id", "condition_id", "token_id", "outcome", "side",
	"price", "size", "size_matched", "order_type", "state", "sent_at", "updated_at", "last_error"}

func writeOrdersCSV(w io.Writer, orders []state.Order) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(ordersCSVHeader)
	for i := range orders {
		o := &orders[i]
		_ = cw.Write([]string{csvTime(o.CreatedAt), o.Hash, o.ExchangeID, o.ConditionID, o.TokenID, strconv.Itoa(o.Outcome),
			string(o.Side), o.Price.String(), o.Size.String(), o.SizeMatched.String(), string(o.OrderType), string(o.State),
			csvTime(o.SentAt), csvTime(o.UpdatedAt), o.LastError})
	}
	cw.Flush()
	return cw.Error()
}

var fillsCSVHeader = []string{"time", "id", "order_hash", "condition_id", "token_id", "side", "price", "size", "fee",
	"external", "short", "seq"}

func writeFillsCSV(w io.Writer, fills []state.Fill) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(fillsCSVHeader)
	for i := range fills {
		f := &fills[i]
		_ = cw.Write([]string{csvTime(f.Time), f.ID, f.OrderHash, f.ConditionID, f.TokenID, string(f.Side),
			f.Price.String(), f.Size.String(), f.Fee.String(), strconv.FormatBool(f.External), strconv.FormatBool(f.Short),
			strconv.FormatUint(f.Seq, 10)})
	}
	cw.Flush()
	return cw.Error()
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/report"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/atomicfile"
	"github.com/mmbot/mmbot/ledger"
	"github.com/mmbot/mmbot/state"
)

const statementLong = `Reports the fills, volume, fees, realized and marked PnL per market and in
total over a period, and the positions over time, from the daemon's order
journal. The journal is opened read-only and never modified; while the
daemon runs (and holds the file's lock) the report comes from a consistent
copy of its last commit.

Positions held when the period starts are carried in at their cost, so the
PnL counts only what happened in the period and realized PnL is measured
against what the shares cost. The journal has no books: open positions are
marked at their last fill price, or with --mark-mid at the current mid of
the exchange's POST /books (the config's exchange; a token without a
two-sided book, or an exchange that does not answer, keeps its last fill
price). The report says which. Spread PnL, markouts and the reward share
need the book and are not shown. Liquidity rewards earned are the daemon's
own estimate (the exchange publishes none), which it writes to the journal
by the hour: the statement counts every hour that overlaps the period,
whole.

--from and --to take an RFC 3339 time (2026-03-01T12:00:00Z), a date
(2026-03-01, midnight UTC), or a duration before now (90m, 24h, 7d); the
period is [from, to), by default from the journal's first fill or order to
now. The output is an aligned table, or with --csv the table as CSV, or
with --json one JSON object; --out DIR also writes summary.txt, series.csv
(positions and PnL over time), markets.csv, fills.csv and report.html (the
backtest's report, self-contained, opens offline).

With -c the journal is the config's state.path (environment overrides
apply); --state names it directly and wins.`

const statementExample = `  mmbot statement -c /etc/mmbot/mmbot.toml --from 24h
  mmbot statement --state /var/lib/mmbot/mmbot.db --from 2026-03-01 --to 2026-03-02 --out statement-0301/
  mmbot statement -c mmbot.toml --mark-mid --json | jq .results.pnl
  mmbot statement --state mmbot.db.paper --csv > markets.csv    # a dry run's journal`

// statementLockTimeout bounds how long mmbot statement tries to get a consistent view
// of a journal that the daemon is writing.
const statementLockTimeout = 2 * time.Second

// statementMidTimeout bounds the reads of the exchange's books for --mark-mid.
const statementMidTimeout = 15 * time.Second

// statementMaxSamples bounds the samples of the series per token that
// --interval may ask for (the default interval takes about 300).
const statementMaxSamples = 100_000

// statementBooksBatch is the most tokens per POST /books (as the daemon's loop).
const statementBooksBatch = 50

// statementFlags are the parsed flags of mmbot statement.
type statementFlags struct {
	configPath, statePath string
	from, to              string
	out                   string
	asCSV, asJSON         bool
	markMid               bool
	interval              time.Duration
}

// newStatementCmd is "mmbot statement", the PnL and history of the
// journal over a period, as a broker's account statement; now reads the
// clock (the default end, and durations before now).
func newStatementCmd(e *env, now func() time.Time) *cobra.Command {
	var f statementFlags
	cmd := &cobra.Command{
		Use:     "statement (-c mmbot.toml | --state PATH) [--from T] [--to T] [--mark-mid] [--csv | --json] [--out DIR]",
		Short:   "report fills, volume, fees and PnL per market over a period, from the journal",
		Long:    statementLong,
		Example: statementExample,
		Args:    noArgs,
		// What people may type for it: "mmbot pnl" suggests this command.
		SuggestFor: []string{"pnl", "report", "history"},
	}
	flags := cmd.Flags()
	flags.StringVarP(&f.configPath, "config", "c", "", "TOML config `file`: its state.path, exchange and rate limits")
	flags.StringVar(&f.statePath, "state", "", "state journal `path`")
	flags.StringVar(&f.from, "from", "", "start of the period (`time`: RFC 3339, a date, or a duration before now)")
	flags.StringVar(&f.to, "to", "", "end of the period, excluded (`time`; default now)")
	flags.StringVar(&f.out, "out", "", "also write summary.txt, series.csv, markets.csv, fills.csv and report.html into `dir`")
	flags.BoolVar(&f.asCSV, "csv", false, "print the table as CSV")
	flags.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	flags.BoolVar(&f.markMid, "mark-mid", false, "mark open positions at the exchange's current mid (needs -c)")
	flags.DurationVar(&f.interval, "interval", 0, "sampling interval of the series (default: from the period's length, 1s to 1 day)")
	cmd.RunE = func(*cobra.Command, []string) error { return runStatement(e, f, now()) }
	return cmd
}

// runStatement runs "mmbot statement" once its flags are parsed into f.
func runStatement(e *env, f statementFlags, now time.Time) error {
	switch {
	case f.statePath == "" && f.configPath == "":
		return usagef("--state PATH or -c CONFIG is required")
	case f.asCSV && f.asJSON:
		return usagef("--csv and --json exclude each other")
	case f.markMid && f.configPath == "":
		return usagef("--mark-mid needs -c CONFIG: the exchange to read the books from")
	case f.markMid && f.to != "":
		return usagef("--mark-mid marks at the exchange's current mid, so the period ends now: drop --to")
	case f.interval < 0:
		return usagef("--interval must not be negative")
	}
	var p ledger.Period
	var err error
	if f.from != "" {
		if p.From, err = parseWhen(f.from, now); err != nil {
			return usagef("--from: %v", err)
		}
	}
	p.To = now
	if f.to != "" {
		if p.To, err = parseWhen(f.to, now); err != nil {
			return usagef("--to: %v", err)
		}
	}
	if !p.From.IsZero() && !p.From.Before(p.To) {
		return usagef("the period %s ends before it starts", p)
	}

	var cfg *configs.Config
	statePath, from := f.statePath, "--state"
	if f.configPath != "" {
		if cfg, err = configs.Load(configs.LoadOptions{File: f.configPath, Environ: e.environ}); err != nil {
			return fmt.Errorf("configuration: %w", err)
		}
		if statePath == "" {
			statePath, from = cfg.State.Path, "state.path of "+f.configPath
		}
	}
	st, err := state.Open(statePath, state.Options{ReadOnly: true, LockTimeout: statementLockTimeout})
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no journal at %s (%s): has mmbot run with this state path?", statePath, from)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	data := statePath
	if txID, ok := st.Snapshot(); ok {
		data += fmt.Sprintf(" (a copy as of transaction %d)", txID)
		fmt.Fprintf(e.stderr, "mmbot statement: read a consistent copy of %s as of transaction %d (the journal is in use or in an older format)\n", statePath, txID)
	}
	j, err := ledger.Load(st, p)
	if err != nil {
		return err
	}
	if span := j.Period().To.Sub(j.Period().From); f.interval > 0 && span/f.interval > statementMaxSamples {
		return usagef("--interval %s samples the period %d times (at most %d): choose a longer one", f.interval, span/f.interval, statementMaxSamples)
	}
	opts := ledger.Options{Interval: f.interval, Data: data}
	if cfg != nil {
		limits := assemble.ClientLimits(&cfg.Exchange.Limits)
		opts.Caps = accounting.RateCaps{Orders10s: limits.PostOrderBurst.Requests, Orders10m: limits.PostOrderSustained.Requests,
			Cancels10s: limits.DeleteOrderBurst.Requests, Cancels10m: limits.DeleteOrderSustained.Requests}
	}
	if f.markMid {
		opts.Mids, opts.MarksNote = readMids(e.ctx, cfg, j.Open())
		if opts.MarksNote != "" {
			fmt.Fprintf(e.stderr, "mmbot statement: %s\n", opts.MarksNote)
		}
	}
	res, err := j.Results(opts)
	if err != nil {
		return err
	}
	if err := addJournalRewards(st, j.Period(), res); err != nil {
		return err
	}
	if err := writeStatement(e, &f, res); err != nil {
		return err
	}
	w := e.stdout
	if f.asJSON || f.asCSV {
		w = e.stderr // stdout is for the data
	}
	return writeFailedTrades(w, j.FailedTrades())
}

// addJournalRewards puts the daemon's liquidity-reward estimate for the
// hours that overlap p (the journal's reward records) into res.
func addJournalRewards(st *state.Store, p ledger.Period, res *accounting.Results) error {
	hours, err := st.Rewards(p.From, p.To)
	if err != nil {
		return fmt.Errorf("journal rewards: %w", err)
	}
	total, by, _ := state.SumRewards(hours)
	fx, err := exchange.FixedFromDecimal(total.Round(6))
	if err != nil {
		return fmt.Errorf("journal rewards: %w", err)
	}
	named := make(map[string]decimal.Decimal, len(by)) // by the reports' market names
	for m, v := range by {
		n := ledger.ShortID(m)
		named[n] = named[n].Add(v)
	}
	res.Reward.Earned, res.RewardsByMarket = fx, named
	return nil
}

// writeFailedTrades lists the trades that failed at settlement in the
// period: each one's fill was taken back (the journal's reversal, booked in
// the report as the opposite fill at the same price). Nothing when none.
func writeFailedTrades(w io.Writer, ts []state.Trade) error {
	if len(ts) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%d trades failed at settlement; their fills are reversed (position, collateral, PnL):\n", len(ts))
	for _, t := range ts {
		if _, err := fmt.Fprintf(w, "  %s  trade %s  order %s  %s %s @ %s  token %s\n", t.UpdatedAt.UTC().Format(time.RFC3339),
			t.ID, ledger.ShortID(t.OrderHash), t.Side, t.Size, t.Price, ledger.ShortID(t.TokenID)); err != nil {
			return err
		}
	}
	return nil
}

// writeStatement prints the report in the chosen form and writes the files.
func writeStatement(e *env, f *statementFlags, res *accounting.Results) error {
	if f.out != "" {
		if err := saveStatement(f.out, res); err != nil {
			return err
		}
	}
	var err error
	switch {
	case f.asJSON:
		err = report.WriteJSON(e.stdout, res)
	case f.asCSV:
		err = report.WriteTableCSV(e.stdout, res)
	default:
		err = report.WriteSummary(e.stdout, res)
	}
	if err != nil || f.out == "" {
		return err
	}
	w := e.stdout
	if f.asJSON || f.asCSV {
		w = e.stderr // stdout is for the data
	} else {
		fmt.Fprintln(w)
	}
	names := []string{"summary.txt", "series.csv", "markets.csv", "fills.csv", "report.html"}
	for i, n := range names {
		names[i] = filepath.Join(f.out, n)
	}
	_, err = fmt.Fprintf(w, "reports: %s\n", strings.Join(names, ", "))
	return err
}

// saveStatement writes the report files into dir, each atomically.
func saveStatement(dir string, res *accounting.Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := report.SaveReports(dir, res); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer, *accounting.Results) error{
		"markets.csv": report.WriteTableCSV,
		"fills.csv":   report.WriteFillsCSV,
	} {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), 0o644, func(w io.Writer) error { return write(w, res) }); err != nil {
			return fmt.Errorf("report %s: %w", name, err)
		}
	}
	return nil
}

// readMids reads the current mid of tokens from the config's exchange
// (POST /books, public). It returns the mids it could read and, when some
// token has none, a note that says why.
func readMids(ctx context.Context, cfg *configs.Config, tokens []string) (map[string]decimal.Decimal, string) {
	if len(tokens) == 0 {
		return nil, ""
	}
	if cfg.Exchange.EmbeddedSim {
		return nil, "no mid read: the config's exchange is the embedded simulated one, which runs only inside mmbot run"
	}
	client, err := assemble.NewClient(cfg, version, exchange.Endpoints{Data: cfg.Exchange.DataURL, Catalog: cfg.Exchange.CatalogURL, CLOB: cfg.Exchange.CLOBURL},
		nil, exchange.Observer{})
	if err != nil {
		return nil, fmt.Sprintf("no mid read: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, statementMidTimeout)
	defer cancel()
	mids := map[string]decimal.Decimal{}
	half := decimal.New(5, -1)
	for i := 0; i < len(tokens); i += statementBooksBatch {
		books, err := client.Books(ctx, tokens[i:min(i+statementBooksBatch, len(tokens))])
		if err != nil {
			return mids, fmt.Sprintf("the exchange's books could not be read (%v): %d of %d open positions marked at the last fill price",
				err, len(tokens)-len(mids), len(tokens))
		}
		for _, b := range books {
			b.Normalize()
			if len(b.Bids) > 0 && len(b.Asks) > 0 {
				mids[b.AssetID] = b.Bids[0].Price.Add(b.Asks[0].Price).Mul(half)
			}
		}
	}
	if n := len(tokens) - len(mids); n > 0 {
		return mids, fmt.Sprintf("%d of %d open positions without a two-sided book, marked at the last fill price", n, len(tokens))
	}
	return mids, ""
}

// durationBefore is a duration before now: Go's (90m, 24h) with days in
// front (7d, 1d12h).
var durationBefore = regexp.MustCompile(`^(?:(\d+)d)?(.*)$`)

// parseWhen reads a --from or --to time: RFC 3339, a date (midnight UTC),
// "now", or a duration before now.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "now" {
		return now, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if m := durationBefore.FindStringSubmatch(s); m != nil && s != "" {
		var d time.Duration
		ok := true
		if m[1] != "" {
			days, err := strconv.Atoi(m[1])
			ok = err == nil && days <= 100000
			d = time.Duration(days) * 24 * time.Hour
		}
		if m[2] != "" {
			rest, err := time.ParseDuration(m[2])
			ok = ok && err == nil
			d += rest
		}
		if ok && d > 0 {
			return now.Add(-d), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want an RFC 3339 time (2026-03-01T12:00:00Z), a date (2026-03-01, UTC) or a duration before now (90m, 24h, 7d)", s)
}

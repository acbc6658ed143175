package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/backtest/importer"
	"github.com/mmbot/mmbot/exchange"
)

const importLong = `Converts captures of the exchange's public market channel (book,
price_change, last_trade_price, tick_size_change and market_resolved
messages) into a recording for mmbot backtest. The inputs are files or glob
patterns, read one after another as one stream (a glob in name order), each
JSON Lines, a JSON array, or both mixed (every value a message or an array
of messages, as a websocket capture holds them), gzip or not.

The market channel carries no minimum order size, reward terms or end date,
and not always the tick size: give them with --catalog (the order-book
API's GET /markets objects: a page, an array as mmbot markets --json prints
it, or one market) or with --tick, --min-size, --end-date and --reward-*,
which win over the catalog. A market's outcomes are told apart by the
catalog or --market (YES first). A capture of one outcome of a binary
market can have the other derived with --complement: its book is the
captured one mirrored at 1 − p, and so are the trades.

Crossed books (one match sent as several price_change messages) are
repaired, and, for one token, events of one timestamp are written meta,
trades, books (docs/data-format.md). The summary on stderr (and with
--json, on stdout) counts every message imported and skipped by reason, the
repairs and the derived events, and warns about markets a backtest cannot
use as they are. The file is written atomically: complete or absent.`

const importExample = `  mmbot import --out rec.jsonl.gz --catalog markets.json 'captures/ws-*.jsonl.gz'
  mmbot markets --json > markets.json    # a catalog snapshot
  mmbot import --out rec.jsonl.gz --market 0xabc…:111…,222… --tick 0.01 --min-size 5 --complement yes-only.jsonl
  mmbot backtest -c mmbot.toml --data rec.jsonl.gz`

// importFlags are the import command's own flags.
type importFlags struct {
	out        string
	catalog    string
	markets    []string
	tick       string
	minSize    string
	endDate    string
	rewardMax  string
	rewardMin  string
	rewardRate string
	complement bool
	tradeSide  string
	window     int
	asJSON     bool
}

func newImportCmd(e *env, now func() time.Time) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:     "import --out rec.jsonl.gz [flags] FILE|GLOB...",
		Short:   "convert market-channel captures into a recording",
		Long:    importLong,
		Example: importExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("no input: give capture files or glob patterns")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.out, "out", "", "write the recording to this `file` (.jsonl.gz)")
	fs.StringVar(&f.catalog, "catalog", "", "market terms and outcomes from this catalog snapshot `file` (GET /markets objects)")
	fs.StringArrayVar(&f.markets, "market", nil, "a binary market's tokens: `condition_id:YES_token,NO_token` (repeatable)")
	fs.StringVar(&f.tick, "tick", "", "tick size of every market (over the catalog's)")
	fs.StringVar(&f.minSize, "min-size", "", "minimum order size of every market, in shares")
	fs.StringVar(&f.endDate, "end-date", "", "end date of every market (RFC 3339 or YYYY-MM-DD)")
	fs.StringVar(&f.rewardMax, "reward-max-spread", "", "liquidity-reward max spread of every market, in cents")
	fs.StringVar(&f.rewardMin, "reward-min-size", "", "liquidity-reward minimum order size of every market, in shares")
	fs.StringVar(&f.rewardRate, "reward-daily-rate", "", "liquidity-reward pool per day of every market")
	fs.BoolVar(&f.complement, "complement", false, "derive a binary market's outcome without books from the other, mirrored at 1 − p")
	fs.StringVar(&f.tradeSide, "trade-side", "taker", "what a trade's side is: taker, maker or none")
	fs.IntVar(&f.window, "window", importer.DefaultWindow, "events held to restore time order")
	fs.BoolVar(&f.asJSON, "json", false, "also print the summary as JSON on stdout")
	cmd.RunE = func(_ *cobra.Command, args []string) error { return runImport(e, now, f, args) }
	return cmd
}

// importOptions turns the flags into the importer's options.
func importOptions(f importFlags) (importer.Options, error) {
	opts := importer.Options{Complement: f.complement, TradeSide: f.tradeSide, Window: f.window}
	switch f.tradeSide {
	case "taker", "maker", "none":
	default:
		return opts, usagef("--trade-side %q: want taker, maker or none", f.tradeSide)
	}
	if f.window <= 0 {
		return opts, usagef("--window %d: want a positive number of events", f.window)
	}
	t := &opts.Terms
	for _, d := range []struct {
		name, v string
		dst     *decimal.Decimal
	}{{"tick", f.tick, &t.Tick}, {"min-size", f.minSize, &t.MinSize}, {"reward-max-spread", f.rewardMax, &t.Rewards.MaxSpread},
		{"reward-min-size", f.rewardMin, &t.Rewards.MinSize}, {"reward-daily-rate", f.rewardRate, &t.Rewards.DailyRate}} {
		if d.v == "" {
			continue
		}
		v, err := decimal.NewFromString(d.v)
		if err != nil {
			return opts, usagef("--%s %q is not a decimal number", d.name, d.v)
		}
		if fx, err := exchange.FixedFromDecimal(v); err != nil || fx <= 0 {
			return opts, usagef("--%s %s: want a positive number with at most 6 decimals", d.name, d.v)
		}
		*d.dst = v
	}
	if f.tick != "" && !exchange.ValidTick(t.Tick) {
		return opts, usagef("--tick %s: want one of 0.1, 0.01, 0.001, 0.0001", f.tick)
	}
	if f.endDate != "" {
		d, ok := exchange.ParseDate(f.endDate)
		if !ok {
			return opts, usagef("--end-date %q: want RFC 3339 (2026-06-30T00:00:00Z) or YYYY-MM-DD", f.endDate)
		}
		t.EndDate = d
	}
	if f.catalog != "" {
		cf, err := os.Open(f.catalog)
		if err != nil {
			return opts, err
		}
		c, err := importer.ReadCatalog(cf)
		cf.Close()
		if err != nil {
			return opts, fmt.Errorf("%s: %w", f.catalog, err)
		}
		opts.Markets, opts.CatalogSkipped = c.Markets, c.Skipped
	}
	for _, spec := range f.markets {
		cond, toks, ok := strings.Cut(spec, ":")
		yes, no, ok2 := strings.Cut(toks, ",")
		if !ok || !ok2 || cond == "" || yes == "" || no == "" || yes == no || strings.Contains(no, ",") {
			return opts, usagef("--market %q: want condition_id:YES_token,NO_token", spec)
		}
		found := false
		for i := range opts.Markets {
			if strings.EqualFold(opts.Markets[i].ConditionID, cond) {
				opts.Markets[i].Tokens, found = []string{yes, no}, true
			}
		}
		if !found {
			opts.Markets = append(opts.Markets, importer.Market{ConditionID: cond, Tokens: []string{yes, no}})
		}
	}
	return opts, nil
}

// runImport runs "mmbot import" once its flags are parsed into f.
func runImport(e *env, now func() time.Time, f importFlags, args []string) error {
	if f.out == "" {
		return usagef("--out is required")
	}
	opts, err := importOptions(f)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	p := newImportProgress(e.stderr, isTerminal(e.stderr), now)
	opts.Progress = p.report
	st, err := importer.ImportFiles(ctx, args, f.out, opts)
	p.done()
	if err != nil {
		return fmt.Errorf("nothing written to %s: %w", f.out, err)
	}
	writeImportSummary(e.stderr, f.out, st)
	if f.asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Out string `json:"out"`
			importer.Stats
		}{f.out, st})
	}
	return nil
}

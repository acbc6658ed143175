package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/backtest/sweep"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/internal/logging"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

const backtestLong = `Replays a recording (docs/data-format.md; .mmrec or .jsonl.gz) through the
strategy, risk and planner code of mmbot run, against a simulated venue
whose fills come from a queue-aware fill model with latency
(docs/backtesting.md). It prints a summary; with --out it also writes
summary.txt, series.csv and report.html (self-contained, opens offline)
into DIR, and with --parquet also fills.parquet, series.parquet and
totals.parquet (exact decimals, for pandas, polars or DuckDB;
docs/data-format.md).

The markets are the recording's binary markets (restricted to
markets.condition_ids when the configuration lists any). Latencies take a
constant ("50ms"), "uniform:20ms-80ms" or "lognormal:40ms,0.5"; the
defaults come from the [backtest] section.

--sweep runs the product of the swept values in parallel (--workers), all
with the same seed, and prints one row per combination (sweep.csv,
sweep.txt and sweep.json with --out, sweep.parquet with --parquet).

--shard i/n runs only the combinations k with k mod n = i, so that a
scheduler can spread a sweep over many machines: --shard auto/n takes i
from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job of n completions),
--shard auto from SLURM_ARRAY_TASK_ID (a Slurm array; n is its task count).
It says which shard ran; with --out it writes sweep-shard-i-of-n.json, .csv
and .txt, and mmbot backtest merge joins the n shards into the files of the
whole sweep.

Sweep keys:
` + sweepKeysHelp

const backtestExample = `  mmbot backtest -c configs/demo.toml --data rec.mmrec --out report/
  mmbot backtest -c configs/demo.toml --data rec.mmrec --out report/ --parquet
  mmbot backtest -c mmbot.toml --data rec.jsonl.gz --fill-model conservative --latency-order uniform:20ms-80ms
  mmbot backtest -c mmbot.toml --data rec.jsonl.gz --sweep gamma=0.05,0.1,0.2 --sweep levels=1,2 --out sweep/
  mmbot backtest -c mmbot.toml --data rec.jsonl.gz --sweep gamma=0.05,0.1,0.2 --shard 1/4 --out sweep/
  mmbot backtest merge sweep/ --out sweep/    # once shards 0/4 to 3/4 ran`

// backtestFlags are the backtest command's own flags.
type backtestFlags struct {
	data      string
	out       string
	fillModel string
	latOrder  string
	latCancel string
	latData   string
	seed      uint64
	sweeps    []string
	shard     string
	workers   int
	json      bool
	parquet   bool          // also write the results as Parquet into out
	interval  time.Duration // sampling interval of the series; 0 chooses from the recording's span
	cpuProf   string        // write a CPU profile of the run to this file
}

func newBacktestCmd(e *env) *cobra.Command {
	var bf backtestFlags
	cmd := &cobra.Command{
		Use:     "backtest -c mmbot.toml --data rec.mmrec [flags]",
		Short:   "replay a recording through the strategy and write a report",
		Long:    backtestLong,
		Example: backtestExample,
		// Only flags, or the merge subcommand (a mistyped one is named).
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 && len(c.SuggestionsFor(args[0])) > 0 {
				return unknownCommand(c, args)
			}
			return noArgs(c, args)
		},
		SuggestionsMinimumDistance: suggestDistance,
	}
	cmd.AddCommand(newBacktestMergeCmd(e))
	fs := cmd.Flags()
	configs.RegisterFlags(fs)
	fs.StringVar(&bf.data, "data", "", "the recording to replay (`file`)")
	fs.StringVar(&bf.out, "out", "", "write the reports into this `dir`")
	fs.StringVar(&bf.fillModel, "fill-model", "", "queue, conservative or optimistic (default: backtest.fill_model)")
	fs.StringVar(&bf.latOrder, "latency-order", "", "order entry latency `dist` (default: backtest.latency_order)")
	fs.StringVar(&bf.latCancel, "latency-cancel", "", "cancel latency `dist` (default: backtest.latency_cancel)")
	fs.StringVar(&bf.latData, "latency-data", "", "market data latency `dist` (default: backtest.latency_data)")
	fs.Uint64Var(&bf.seed, "seed", 1, "seed of the latency draws and the sampled queue model")
	fs.StringArrayVar(&bf.sweeps, "sweep", nil, "sweep a parameter: `key=v1,v2,...` (repeatable)")
	fs.StringVar(&bf.shard, "shard", "", "run the `i/n`-th slice of the sweep (combinations k with k mod n = i); auto/n or auto take i from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID")
	fs.IntVar(&bf.workers, "workers", runtime.GOMAXPROCS(0), "parallel runs of a sweep")
	fs.DurationVar(&bf.interval, "interval", 0, "sampling interval of the series, the plots and Sharpe/Sortino (default: from the recording's span, 1s to 1m)")
	fs.BoolVar(&bf.json, "json", false, "print JSON instead of tables")
	fs.BoolVar(&bf.parquet, "parquet", false, "with --out: also write the results as Parquet (fills, series, totals; sweep.parquet for a sweep)")
	fs.StringVar(&bf.cpuProf, "cpuprofile", "", "write a CPU profile of the run to `file` (go tool pprof)")
	cmd.RunE = func(*cobra.Command, []string) error {
		if bf.cpuProf == "" {
			return runBacktest(e, fs, bf)
		}
		stop, err := startCPUProfile(bf.cpuProf)
		if err != nil {
			return err
		}
		return errors.Join(runBacktest(e, fs, bf), stop())
	}
	return cmd
}

// runBacktest runs "mmbot backtest" once its flags are parsed into fs and bf.
func runBacktest(e *env, fs *pflag.FlagSet, bf backtestFlags) error {
	if bf.data == "" {
		return usagef("--data is required")
	}
	if bf.workers < 1 {
		return usagef("--workers must be at least 1")
	}
	if bf.parquet && bf.out == "" {
		return usagef("--parquet needs --out")
	}
	var params []sweep.Param
	for _, s := range bf.sweeps {
		p, err := sweep.Parse(s)
		if err != nil {
			return usagef("%v", err)
		}
		if err := checkSweepKey(p.Key); err != nil {
			return usagef("%v", err)
		}
		params = append(params, p)
	}
	combos, err := sweep.Grid(params)
	if err != nil {
		return usagef("%v", err)
	}
	shard, err := resolveShard(e, &bf, params)
	if err != nil {
		return err
	}
	todo := combos
	if shard != nil {
		todo = shard.Of(combos)
	}
	stderr := &lockedWriter{w: e.stderr}
	base, err := newBacktestSetup(e, stderr, fs, &bf)
	if err != nil {
		return err
	}
	// Every combination's configuration is built (and checked) before any
	// run starts.
	runs := make([]*backtestRun, len(combos))
	for i, c := range combos {
		if runs[i], err = base.forCombo(c); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	defer tuneBacktestGC(e.getenv)()

	st, err := os.Stat(bf.data)
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	groups := (len(todo) + sweepShare - 1) / sweepShare
	prog := newBtProgress(stderr, isTerminal(e.stderr), st.Size()*int64(1+groups)) // the scan, then one read per group of sweepShare combinations
	defer prog.stop()
	scan, err := scanRecording(bf.data, prog)
	if err != nil {
		return err
	}
	for _, n := range scan.Notes {
		base.log.Warn().Msg(n)
	}
	markets, err := scan.Pick(base.cfg.Markets.ConditionIDs)
	if err != nil {
		return err
	}
	if err := checkHalfMarkets(scan, markets); err != nil {
		return err
	}
	if bf.interval < 0 {
		return usagef("--interval must not be negative")
	}
	if bf.interval == 0 {
		bf.interval = sampleInterval(scan.End.Sub(scan.Start))
	}
	// A shard names its sweep before it runs: what the merge checks.
	var id sweep.Identity
	if shard != nil {
		if id, err = base.identity(params, bf.data, bf.interval); err != nil {
			return err
		}
	}
	names := reportNames(markets)
	one := func(ctx context.Context, run *backtestRun) (*accounting.Results, error) {
		return run.replay(ctx, bf.data, markets, prog, bf.interval, names)
	}
	if len(params) == 0 {
		res, err := one(ctx, runs[0])
		prog.stop()
		if err != nil {
			return err
		}
		return writeBacktest(e.stdout, &bf, res)
	}
	rows, err := runSweep(ctx, todo, bf.workers, bf.data, prog, func(ctx context.Context, c sweep.Combo, src replay.Source) (*accounting.Results, error) {
		return runs[c.Index].replaySource(ctx, src, bf.data, markets, prog, bf.interval, names)
	})
	prog.stop()
	if err != nil {
		return err
	}
	if shard != nil {
		part := &sweep.Part{Sweep: id, Shard: shard.Shard, Rows: rows}
		return writeShard(e.stdout, &bf, shard, part, len(combos))
	}
	keys := make([]string, len(params))
	for i, p := range params {
		keys[i] = p.Key
	}
	return writeSweep(e.stdout, bf.out, bf.json, bf.parquet, keys, rows)
}

// backtestSetup is what every run of one invocation shares.
type backtestSetup struct {
	e        *env
	flags    *backtestFlags
	fileSets []string // the config flags to reload the configuration with
	cfg      *configs.Config
	log      zerolog.Logger
}

func newBacktestSetup(e *env, stderr io.Writer, fs *pflag.FlagSet, bf *backtestFlags) (*backtestSetup, error) {
	s := &backtestSetup{e: e, flags: bf}
	if f := fs.Lookup(configs.FlagConfig); f != nil && f.Changed {
		s.fileSets = append(s.fileSets, "--"+configs.FlagConfig, f.Value.String())
	}
	sets, _ := fs.GetStringArray(configs.FlagSet)
	for _, kv := range sets {
		s.fileSets = append(s.fileSets, "--"+configs.FlagSet, kv)
	}
	cfg, err := s.load(nil)
	if err != nil {
		return nil, err
	}
	s.cfg = cfg
	// The loop logs every fill at info level: a backtest shows warnings
	// unless a more verbose level is asked for.
	level := cfg.Log.Level
	if level == "info" {
		level = "warn"
	}
	s.log, err = logging.New(logging.Options{Level: level, Format: cfg.Log.Format, Out: stderr, IsTerminal: isTerminal(e.stderr)})
	return s, err
}

// load reads the configuration with the command's config flags and extra
// --set values.
func (s *backtestSetup) load(extra []string) (*configs.Config, error) {
	opts, err := s.loadOptions(extra)
	if err != nil {
		return nil, err
	}
	cfg, err := configs.Load(opts)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

// loadOptions are the options of configs.Load for the command's config
// flags and extra --set values.
func (s *backtestSetup) loadOptions(extra []string) (configs.LoadOptions, error) {
	fs := pflag.NewFlagSet("backtest config", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	configs.RegisterFlags(fs)
	// A backtest reaches no exchange: the [exchange] URLs must not be
	// required, which the embedded simulator's flag says (it starts
	// nothing here). It goes first, so the user's --set values win.
	args := append([]string{"--" + configs.FlagSet, "exchange.embedded_sim=true"}, s.fileSets...)
	for _, kv := range extra {
		args = append(args, "--"+configs.FlagSet, kv)
	}
	if err := fs.Parse(args); err != nil {
		return configs.LoadOptions{}, usagef("%v", err)
	}
	return configs.LoadOptions{Environ: s.e.environ, Flags: fs}, nil
}

// backtestRun is one run: its configuration and replay settings.
type backtestRun struct {
	setup *backtestSetup
	combo sweep.Combo
	cfg   *configs.Config
	rs    replaySettings
}

// forCombo builds the configuration of one combination: dotted keys are
// configuration keys (applied like --set), the short keys of
// sweepKeysHelp are applied on top.
func (s *backtestSetup) forCombo(c sweep.Combo) (*backtestRun, error) {
	var sets []string
	for i, k := range c.Keys {
		if strings.Contains(k, ".") {
			sets = append(sets, k+"="+c.Values[i])
		}
	}
	// A fresh configuration per combination: nothing is shared between
	// runs.
	cfg, err := s.load(sets)
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", c, err)
	}
	rs, err := baseReplaySettings(cfg, s.flags)
	if err != nil {
		return nil, err
	}
	// The model first: what the other keys change depends on it.
	for _, pass := range []func(string) bool{
		func(k string) bool { return k == "model" },
		func(k string) bool { return k != "model" && !strings.Contains(k, ".") },
	} {
		for i, k := range c.Keys {
			if !pass(k) {
				continue
			}
			if err := applySweepKey(cfg, &rs, k, c.Values[i]); err != nil {
				return nil, usagef("sweep %s=%s: %v", k, c.Values[i], err)
			}
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sweep %s: %w", c, err)
	}
	if _, _, err := assemble.StrategyParams(cfg); err != nil {
		return nil, fmt.Errorf("sweep %s: %w", c, err)
	}
	return &backtestRun{setup: s, combo: c, cfg: cfg, rs: rs}, nil
}

// replay runs one backtest of the recording at path.
func (run *backtestRun) replay(ctx context.Context, path string, markets []strategy.Market, prog *btProgress,
	interval time.Duration, names marketNames) (*accounting.Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	rd, err := recording.NewReader(prog.reader(f))
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	defer rd.Close()
	// The replay reads the books' Fixed levels, and converts to decimals
	// only the books the strategy reads.
	rd.FixedLevelsOnly()
	// Decoding (zstd and binary, or gzip and JSON) runs ahead on its own
	// goroutine.
	src := replay.Prefetch(rd, 0, 0)
	defer src.Close()
	return run.replaySource(ctx, src, path, markets, prog, interval, names)
}

// sweepShare is the most combinations that share one decoding: they run
// at once, each holding its own state (about 30 MB for a day of 30
// markets), so a sweep of many more decodes once per group of this many
// and holds at most this many runs.
const sweepShare = 12

// runSweep runs the combinations todo, in groups of at most sweepShare
// that share one decoding of the recording at path: a group's runs go at
// once, each reading from one Broadcast, workers of them at work at a time.
func runSweep(ctx context.Context, todo []sweep.Combo, workers int, path string, prog *btProgress,
	run func(ctx context.Context, c sweep.Combo, src replay.Source) (*accounting.Results, error)) ([]sweep.Row, error) {
	rows := []sweep.Row{}
	for len(todo) > 0 {
		n := min(len(todo), sweepShare)
		got, err := runSweepGroup(ctx, todo[:n], workers, path, prog, run)
		rows = append(rows, got...)
		if err != nil {
			return rows, err
		}
		todo = todo[n:]
	}
	return rows, ctx.Err()
}

// runSweepGroup runs the combinations todo over one decoding.
func runSweepGroup(ctx context.Context, todo []sweep.Combo, workers int, path string, prog *btProgress,
	run func(ctx context.Context, c sweep.Combo, src replay.Source) (*accounting.Results, error)) ([]sweep.Row, error) {
	cast, err := openBroadcast(path, prog, len(todo), workers)
	if err != nil {
		return nil, err
	}
	defer cast.Close()
	// Interrupted, the runs waiting for events end with an error (a
	// combination never started would hold the others back).
	defer context.AfterFunc(ctx, cast.Broadcast.Close)()
	reader := make(map[int]int, len(todo)) // combination index → its Reader
	for i, c := range todo {
		reader[c.Index] = i
	}
	return sweep.Run(ctx, todo, len(todo), func(ctx context.Context, c sweep.Combo) (*accounting.Results, error) {
		src := cast.Reader(reader[c.Index])
		defer src.Close()
		return run(ctx, c, src)
	})
}

// castSource is a sweep's shared decoding: the Broadcast and what it reads.
type castSource struct {
	*replay.Broadcast
	rd *recording.Reader
	f  *os.File
}

// Close stops the Broadcast and closes the recording.
func (c *castSource) Close() {
	c.Broadcast.Close()
	c.rd.Close()
	c.f.Close()
}

// openBroadcast opens the recording at path for n replays that share its
// decoding, parallel of them working at once.
func openBroadcast(path string, prog *btProgress, n, parallel int) (*castSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	rd, err := recording.NewReader(prog.reader(f))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	rd.FixedLevelsOnly()
	b, err := replay.NewBroadcast(rd, n, 0, 0, parallel)
	if err != nil {
		rd.Close()
		f.Close()
		return nil, err
	}
	return &castSource{Broadcast: b, rd: rd, f: f}, nil
}

// replaySource runs one backtest of the recording at path, read from src.
func (run *backtestRun) replaySource(ctx context.Context, src replay.Source, path string, markets []strategy.Market, prog *btProgress,
	interval time.Duration, names marketNames) (*accounting.Results, error) {
	cfg := run.cfg
	params, est, err := assemble.StrategyParams(cfg)
	if err != nil {
		return nil, err
	}
	kill, err := risk.NewKillSwitch(assemble.KillConfig(&cfg.Risk))
	if err != nil {
		return nil, err // "risk: kill switch: ..."
	}
	limits := assemble.ClientLimits(&cfg.Exchange.Limits)
	lc := assemble.LoopConfig(cfg, markets, params, est, kill)
	run.rs.matcher.Seed = run.setup.flags.seed
	res, err := replay.Run(ctx, src, replay.RunConfig{
		Loop: lc,
		Replay: replay.Config{Markets: markets, Matcher: run.rs.matcher, Limits: &limits,
			ProgressEvery: 4096, OnProgress: prog.events(4096)},
		Accumulator: accounting.AccumulatorConfig{
			Interval: interval,
			Run: accounting.RunInfo{Data: path, Strategy: describeStrategy(cfg, run.combo),
				Labels: names.labels, Markets: names.markets, Questions: names.questions,
				Fees: fillmodel.Fees{MakerBps: decimal.NewFromInt(int64(cfg.Backtest.MakerFeeBps)), TakerBps: decimal.NewFromInt(int64(cfg.Backtest.TakerFeeBps))}},
			Caps: accounting.RateCaps{Orders10s: limits.PostOrderBurst.Requests, Orders10m: limits.PostOrderSustained.Requests,
				Cancels10s: limits.DeleteOrderBurst.Requests, Cancels10m: limits.DeleteOrderSustained.Requests},
		},
		Log: run.setup.log,
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// scanRecording finds the recording's markets (a first pass over the file,
// which needs no levels: a version 2 recording skips them).
func scanRecording(path string, prog *btProgress) (*replay.MarketScan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	rd, err := recording.NewReader(prog.reader(f))
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	defer rd.Close()
	rd.SkipLevels()
	scan, err := replay.ScanMarkets(rd)
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	return scan, nil
}

// checkHalfMarkets refuses a backtest in which no market can be quoted
// because each has books of one outcome only (the strategy needs both):
// it would run to the end without an order. Some such markets among
// others are left to the scan's notes.
func checkHalfMarkets(scan *replay.MarketScan, markets []strategy.Market) error {
	half := scan.HalfMarkets(markets)
	if len(half) == 0 || len(half) < len(markets) {
		return nil
	}
	m := half[0]
	return fmt.Errorf("nothing to quote: %d of %d markets have books of one outcome only (market %s: %d books of YES, %d of NO); "+
		"the strategy quotes a market only with the books of both outcomes (record both tokens: see docs/backtesting.md)",
		len(half), len(markets), m.ConditionID, scan.Books[m.TokenIDs[strategy.Yes]], scan.Books[m.TokenIDs[strategy.No]])
}

// sampleInterval chooses the series' sampling interval from the recording's
// span: about 300 samples, rounded to 1s, 5s, 10s, 30s or 1m (a day-long
// recording gets the one-minute samples the metrics are defined on; a
// five-minute one still draws a curve).
func sampleInterval(span time.Duration) time.Duration {
	want := span / 300
	for _, d := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second} {
		if want <= d {
			return d
		}
	}
	return time.Minute
}

// marketNames name the markets and tokens for the reports (RunInfo
// Labels, Markets and Questions).
type marketNames struct {
	labels    map[string]string // token → "<market> YES"
	markets   map[string]string // token → market name
	questions map[string]string // market name → question, where known
}

// reportNames names each market by its slug (or a shortened condition id),
// each token by its market and outcome, and keeps the questions known
// (the recording's metas carry them since mmbot record and mmbot import
// write the catalog's question and slug; older recordings have none, and
// their markets are headed by a shortened condition id).
func reportNames(markets []strategy.Market) marketNames {
	n := marketNames{labels: make(map[string]string, 2*len(markets)), markets: make(map[string]string, 2*len(markets)),
		questions: map[string]string{}}
	for _, m := range markets {
		name := m.Slug
		if name == "" {
			name = status.ShortID(m.ConditionID)
		}
		for o, suffix := range [2]string{strategy.Yes: " YES", strategy.No: " NO"} {
			if tok := m.TokenIDs[o]; tok != "" {
				n.labels[tok] = name + suffix
				n.markets[tok] = name
			}
		}
		if m.Question != "" {
			n.questions[name] = m.Question
		}
	}
	return n
}

// startCPUProfile starts a CPU profile written to path; stop ends it and
// closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}

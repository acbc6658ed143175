package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/scoreboard"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/risk"
)

const scoreboardLong = `Generates recordings of the simulated exchange for each named market
scenario (calm, trending, jumps, informed takers, thin wide books, markets
reaching their end date, reward-paying markets) on its simulated clock, with
--seeds seeds each, then replays each through every model (bands,
avellaneda, glft, touch and the naive benchmark) with the configuration's defaults
under the conservative and the queue fill models, and prints a Markdown
table of means over the seeds with 95% t-intervals: PnL, PnL per notional
and per fill, fills, the realized-spread and mid-to-mid markouts, inventory
sd, max drawdown, reward share, orders per fill and risk-limit breaches;
then the default model's aims, won, tied or lost on the intervals (of the
difference from the naive quoter, paired by seed).

The output depends only on the flags: run it twice, get the same bytes.
--out FILE replaces the part of FILE between the lines
"<!-- scoreboard:begin -->" and "<!-- scoreboard:end -->" (docs/scoreboard.md
holds the full table), or writes FILE when it does not exist. --short runs
the short version the tests compare byte for byte. Progress goes to stderr.`

const scoreboardExample = `  mmbot scoreboard --out docs/scoreboard.md
  mmbot scoreboard --short
  mmbot scoreboard --scenario informed --duration 2h
  mmbot scoreboard --seeds 20 --markets 8 --duration 1h   # the long run`

// Markers of the generated part of a file written with --out.
const (
	scoreboardBegin = "<!-- scoreboard:begin -->"
	scoreboardEnd   = "<!-- scoreboard:end -->"
)

// scoreboardModels are the models the scoreboard compares, in table order.
var scoreboardModels = []string{"bands", "avellaneda", "glft", "touch", "naive"}

type scoreboardFlags struct {
	short     bool
	out       string
	duration  time.Duration
	markets   int
	seed      uint64
	seeds     int
	scenarios []string
	workers   int
}

func newScoreboardCmd(e *env) *cobra.Command {
	var f scoreboardFlags
	cmd := &cobra.Command{
		Use:     "scoreboard [flags]",
		Short:   "compare the models on simulated market scenarios (a regenerable table)",
		Long:    scoreboardLong,
		Example: scoreboardExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.short, "short", false, "the short version: "+describeOptions(scoreboard.ShortOptions))
	fs.StringVar(&f.out, "out", "", "write the table into this `file` (between the scoreboard markers) instead of stdout")
	fs.DurationVar(&f.duration, "duration", 0, "simulated time of each scenario (default "+scoreboard.DefaultOptions.Duration.String()+")")
	fs.IntVar(&f.markets, "markets", 0, fmt.Sprintf("generated markets per scenario (default %d)", scoreboard.DefaultOptions.Markets))
	fs.Uint64Var(&f.seed, "seed", 1, "base seed of the scenarios and the fill model")
	fs.IntVar(&f.seeds, "seeds", 0, fmt.Sprintf("seeds per scenario: every figure is a mean with its 95%% interval over them (default %d)", scoreboard.DefaultOptions.Seeds))
	fs.StringSliceVar(&f.scenarios, "scenario", nil, "run only these `names` (repeatable): "+
		strings.Join(scoreboard.Names(scoreboard.Scenarios(scoreboard.DefaultOptions)), ", "))
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "parallel scenarios and replays (the table does not depend on it)")
	cmd.RunE = func(*cobra.Command, []string) error { return runScoreboard(e, fs, f) }
	return cmd
}

func describeOptions(o scoreboard.Options) string {
	return fmt.Sprintf("%d markets, %s per scenario", o.Markets, o.Duration)
}

// runScoreboard runs "mmbot scoreboard" once its flags are parsed.
func runScoreboard(e *env, fs *pflag.FlagSet, f scoreboardFlags) error {
	opts := scoreboard.DefaultOptions
	if f.short {
		opts = scoreboard.ShortOptions
	}
	if f.duration != 0 {
		opts.Duration = f.duration
	}
	if f.markets != 0 {
		opts.Markets = f.markets
	}
	if f.seeds != 0 {
		opts.Seeds = f.seeds
	}
	opts.Seed = f.seed
	switch {
	case f.workers < 1:
		return usagef("--workers must be at least 1")
	case opts.Duration < time.Minute:
		return usagef("--duration %s: want at least 1m", opts.Duration)
	case opts.Markets < 1:
		return usagef("--markets %d: want at least 1", opts.Markets)
	case opts.Seeds < 1 || opts.Seeds > 1000:
		return usagef("--seeds %d: want 1 to 1000", opts.Seeds)
	}
	scen, err := scoreboard.Pick(scoreboard.Scenarios(opts), f.scenarios)
	if err != nil {
		return usagef("--scenario: %v", err)
	}
	def, err := scoreboardConfig("")
	if err != nil {
		return err
	}
	for _, m := range scoreboardModels { // every model's configuration, checked before anything runs
		for _, s := range scen {
			if _, err := scoreboardSetup(m, s.Settings); err != nil {
				return fmt.Errorf("scenario %s: %w", s.Name, err)
			}
		}
	}
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rows, err := scoreboard.Run(ctx, scoreboard.Config{
		Scenarios: scen, Models: scoreboardModels, Modes: []fillmodel.Mode{fillmodel.ModeConservative, fillmodel.ModeQueue},
		Build: scoreboardSetup, Seed: f.seed, Seeds: opts.Seeds, Workers: f.workers, Progress: e.stderr,
	})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	doc := &scoreboard.Doc{Command: scoreboardCommand(fs, f), Default: def.Strategy.Model, Seed: f.seed, Seeds: opts.Seeds, Scenarios: scen, Rows: rows}
	if err := scoreboard.Write(&b, doc); err != nil {
		return err
	}
	if f.out == "" {
		_, err := e.stdout.Write(b.Bytes())
		return err
	}
	if err := writeScoreboard(f.out, b.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote the scoreboard (%d runs) to %s\n", len(rows), f.out)
	return nil
}

// scoreboardCommand is the command line that regenerates the table: the
// flags given, in a fixed order, without --workers (it changes nothing).
func scoreboardCommand(fs *pflag.FlagSet, f scoreboardFlags) string {
	args := []string{"mmbot scoreboard"}
	for _, name := range []string{"short", "duration", "markets", "seed", "seeds", "scenario", "out"} {
		fl := fs.Lookup(name)
		if fl == nil || !fl.Changed {
			continue
		}
		switch name {
		case "short":
			args = append(args, "--short")
		case "scenario":
			for _, s := range f.scenarios {
				args = append(args, "--scenario "+s)
			}
		default:
			args = append(args, "--"+name+" "+fl.Value.String())
		}
	}
	return strings.Join(args, " ")
}

// writeScoreboard puts table between the markers of the file at path, or
// writes the file when there is none.
func writeScoreboard(path string, table []byte) error {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return os.WriteFile(path, table, 0o644)
	}
	if err != nil {
		return err
	}
	doc, err := spliceScoreboard(string(old), string(table))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}

// spliceScoreboard replaces what lies between the markers of doc.
func spliceScoreboard(doc, table string) (string, error) {
	head, rest, ok := strings.Cut(doc, scoreboardBegin+"\n")
	if !ok {
		return "", fmt.Errorf("no line %q: the table goes between it and %q", scoreboardBegin, scoreboardEnd)
	}
	_, tail, ok := strings.Cut(rest, scoreboardEnd)
	if !ok {
		return "", fmt.Errorf("no line %q after %q", scoreboardEnd, scoreboardBegin)
	}
	return head + scoreboardBegin + "\n" + table + scoreboardEnd + tail, nil
}

// scoreboardConfig is the default configuration, with the model when one
// is named. No file and no environment: the scoreboard scores defaults.
func scoreboardConfig(model string, settings ...string) (*configs.Config, error) {
	fset := pflag.NewFlagSet("scoreboard config", pflag.ContinueOnError)
	configs.RegisterFlags(fset)
	args := []string{"--" + configs.FlagSet, "exchange.embedded_sim=true"}
	if model != "" {
		args = append(args, "--"+configs.FlagSet, "strategy.model="+model)
	}
	if model == "naive" { // the benchmark: no rule of the daemon's on top
		args = append(args, "--"+configs.FlagSet, "strategy.adverse.enabled=false", "--"+configs.FlagSet, "strategy.rewards.enabled=false")
	}
	for _, s := range settings {
		args = append(args, "--"+configs.FlagSet, s)
	}
	if err := fset.Parse(args); err != nil {
		return nil, err
	}
	cfg, err := configs.Load(configs.LoadOptions{Flags: fset})
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

// scoreboardSetup builds one run of a model from the default
// configuration, as mmbot backtest would.
func scoreboardSetup(model string, settings []string) (*scoreboard.Setup, error) {
	cfg, err := scoreboardConfig(model, settings...)
	if err != nil {
		return nil, err
	}
	params, est, err := assemble.StrategyParams(cfg)
	if err != nil {
		return nil, err
	}
	kill, err := risk.NewKillSwitch(assemble.KillConfig(&cfg.Risk))
	if err != nil {
		return nil, err
	}
	limits := assemble.ClientLimits(&cfg.Exchange.Limits)
	b := &cfg.Backtest
	return &scoreboard.Setup{
		Loop: assemble.LoopConfig(cfg, nil, params, est, kill),
		Matcher: fillmodel.MatcherConfig{Latency: fillmodel.Latency{Order: fillmodel.Constant(b.LatencyOrder.Std()),
			Cancel: fillmodel.Constant(b.LatencyCancel.Std()), Data: fillmodel.Constant(b.LatencyData.Std())}},
		Limits:      &limits,
		Fees:        fillmodel.Fees{MakerBps: decimal.NewFromInt(int64(b.MakerFeeBps)), TakerBps: decimal.NewFromInt(int64(b.TakerFeeBps))},
		MaxPosition: cfg.Risk.MaxPosition, MaxTotalPosition: cfg.Risk.MaxTotalPosition,
	}, nil
}

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

const scoreboardLong = `Generates a recording of the simulated exchange for each named market
scenario (calm, trending, jumps, informed takers, thin wide books, markets
reaching their end date, reward-paying markets) on its simulated clock, with
fixed seeds, then replays each through every model (bands, avellaneda,
glft) with the configuration's defaults under the conservative and the
queue fill models, and prints a Markdown table: PnL, its sd over the run's
minutes, max drawdown, inventory sd, fills, volume, markouts at 10 s and
60 s, reward share, orders per fill and risk-limit breaches.

The output depends only on the flags: run it twice, get the same bytes.
--out FILE replaces the part of FILE between the lines
"<!-- scoreboard:begin -->" and "<!-- scoreboard:end -->" (docs/scoreboard.md
holds the full table), or writes FILE when it does not exist. --short runs
the short version the tests compare byte for byte. Progress goes to stderr.`

const scoreboardExample = `  mmbot scoreboard --out docs/scoreboard.md
  mmbot scoreboard --short
  mmbot scoreboard --scenario informed --duration 2h`

// Markers of the generated part of a file written with --out.
const (
	scoreboardBegin = "<!-- scoreboard:begin -->"
	scoreboardEnd   = "<!-- scoreboard:end -->"
)

// scoreboardModels are the models the scoreboard compares, in table order.
var scoreboardModels = []string{"bands", "avellaneda", "glft"}

type scoreboardFlags struct {
	short     bool
	out       string
	duration  time.Duration
	markets   int
	seed      uint64
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
	opts.Seed = f.seed
	switch {
	case f.workers < 1:
		return usagef("--workers must be at least 1")
	case opts.Duration < time.Minute:
		return usagef("--duration %s: want at least 1m", opts.Duration)
	case opts.Markets < 1:
		return usagef("--markets %d: want at least 1", opts.Markets)
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
		if _, err := scoreboardSetup(m); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rows, err := scoreboard.Run(ctx, scoreboard.Config{
		Scenarios: scen, Models: scoreboardModels, Modes: []fillmodel.Mode{fillmodel.ModeConservative, fillmodel.ModeQueue},
		Build: func(model string) (*scoreboard.Setup, error) { return scoreboardSetup(model) },
		Seed:  f.seed, Workers: f.workers, Progress: e.stderr,
	})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	doc := &scoreboard.Doc{Command: scoreboardCommand(fs, f), Default: def.Strategy.Model, Seed: f.seed, Scenarios: scen, Rows: rows}
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
	for _, name := range []string{"short", "duration", "markets", "seed", "scenario", "out"} {
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
func scoreboardConfig(model string) (*configs.Config, error) {
	fset := pflag.NewFlagSet("scoreboard config", pflag.ContinueOnError)
	configs.RegisterFlags(fset)
	args := []string{"--" + configs.FlagSet, "exchange.embedded_sim=true"}
	if model != "" {
		args = append(args, "--"+configs.FlagSet, "strategy.model="+model)
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
func scoreboardSetup(model string) (*scoreboard.Setup, error) {
	cfg, err := scoreboardConfig(model)
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

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/daemon"
	"github.com/mmbot/mmbot/internal/logging"
)

// runFlags are the run command's own flags (the config flags come from
// configs.RegisterFlags).
type runFlags struct {
	dryRun   bool
	duration time.Duration
	status   string
}

const runLong = `Runs the daemon: it reconciles the state journal with the exchange, then
quotes both sides of the configured markets every strategy.cycle, inside the
risk limits, until SIGTERM or SIGINT (or --duration), when it cancels every
live order and prints a summary. Against the configured exchange URLs (an
empty one is taken from account.credentials_file, where mmbot sim writes
its own), or against the simulated exchange started in-process
(exchange.embedded_sim).
SIGHUP reloads the [strategy] and [risk] parameters; SIGUSR1 resets a
tripped kill switch. docs/daemon.md describes the loop, docs/operations.md
running it under systemd.

--dry-run is paper trading: live books and trades, fills from the backtest
fill model, nothing sent to the order endpoints and no key needed; its
journal is state.path + ".paper" (docs/backtesting.md).

The configuration comes from the -c file, the MMBOT_* environment and the
flags, later ones winning (docs/configuration.md).`

const runExample = `  mmbot run -c configs/demo.toml --duration 60s    # the demo: embedded simulated exchange
  mmbot run -c mmbot.toml
  mmbot run -c mmbot.toml --dry-run --status on
  mmbot run -c mmbot.toml --set strategy.cycle=2s --log-level debug`

func newRunCmd(e *env) *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:     "run -c mmbot.toml [flags]",
		Short:   "quote the configured markets (live, or paper with --dry-run)",
		Long:    runLong,
		Example: runExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	configs.RegisterFlags(fs)
	fs.BoolVar(&rf.dryRun, "dry-run", false, "paper trading: live books, simulated fills, nothing sent")
	fs.DurationVar(&rf.duration, "duration", 0, "stop by itself after this long (0: run until SIGTERM)")
	fs.StringVar(&rf.status, "status", "auto", "live status table on stdout: auto (when a terminal), on, off")
	cmd.RunE = func(*cobra.Command, []string) error { return runDaemon(e, fs, rf) }
	return cmd
}

// runDaemon runs "mmbot run" once its flags are parsed into fs and rf: the
// daemon (package daemon) until SIGINT or SIGTERM.
func runDaemon(e *env, fs *pflag.FlagSet, rf runFlags) error {
	if rf.duration < 0 {
		return usagef("--duration must not be negative")
	}
	switch rf.status {
	case "auto", "on", "off":
	default:
		return usagef("--status must be auto, on or off, not %q", rf.status)
	}
	load := func() (*configs.Config, error) {
		return configs.Load(configs.LoadOptions{Environ: daemon.ConfigEnviron(e.environ), Flags: fs})
	}
	cfg, err := load()
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	d, err := daemon.New(cfg, daemon.WithDryRun(rf.dryRun), daemon.WithDuration(rf.duration), daemon.WithReload(load),
		daemon.WithGetenv(e.getenv), daemon.WithVersion(version, buildVersion(version)), daemon.WithLog(e.stderr, isTerminal(e.stderr)),
		daemon.WithOutput(e.stdout), daemon.WithStatusTable(rf.status == "on" || (rf.status == "auto" && isTerminal(e.stdout))))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return d.Run(ctx)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && logging.IsTerminal(f)
}

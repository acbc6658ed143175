package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/mmbot/mmbot/backtest/paper"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/logging"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/internal/sdnotify"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
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

// runDaemon runs "mmbot run" once its flags are parsed into fs and rf.
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
		return configs.Load(configs.LoadOptions{Environ: configEnviron(e.environ), Flags: fs})
	}
	cfg, err := load()
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	gc, err := guardConfig(cfg)
	if err != nil {
		return err
	}
	log, err := logging.New(logging.Options{Level: cfg.Log.Level, Format: cfg.Log.Format, Out: e.stderr, IsTerminal: isTerminal(e.stderr)})
	if err != nil {
		return err
	}
	d := &daemon{e: e, cfg: cfg, log: log, flags: rf, reload: load, guard: gc}
	return d.run()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && logging.IsTerminal(f)
}

// daemon is one run of `mmbot run`: the wiring of DESIGN.md §2 and the
// process's life cycle (signals, systemd, metrics, shutdown).
type daemon struct {
	e      *env
	cfg    *configs.Config
	log    zerolog.Logger
	flags  runFlags
	reload func() (*configs.Config, error)
	guard  loop.GuardConfig // Observe is set by run

	obs    *observer
	client *exchange.Client
	paper  *paper.Venue // dry run only
	loop   *loop.Loop
	kill   *risk.KillSwitch
	health *metrics.Health
	status *statusSource
	notify *sdnotify.Notifier
	start  time.Time
}

func (d *daemon) run() error {
	e, cfg, log := d.e, d.cfg, d.log
	d.start = time.Now()
	sigCtx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	notify, err := sdnotify.New(e.getenv("NOTIFY_SOCKET"))
	if err != nil {
		return err
	}
	d.notify = notify
	d.health = &metrics.Health{}
	d.obs = &observer{log: log}

	// The exchange: embedded simulator or configured URLs.
	urls, acct, stopExchange, err := endpoints(cfg)
	if err != nil {
		return err
	}
	defer stopExchange()
	if cfg.Exchange.EmbeddedSim {
		log.Info().Str("clob", urls.CLOB).Str("data", urls.Data).Str("catalog", urls.Catalog).Msg("embedded simulated exchange started")
	} else {
		log.Info().Str("clob", safeURL(urls.CLOB)).Str("data", safeURL(urls.Data)).Str("catalog", safeURL(urls.Catalog)).Msg("exchange")
	}
	if !cfg.Exchange.EmbeddedSim && !d.flags.dryRun {
		acct, err = loadAccount(cfg, e.getenv, func(w string) { log.Warn().Msg(w) })
		if err != nil {
			return err
		}
	}
	if d.flags.dryRun { // a throwaway account: see run_paper.go
		if acct, err = paperAccount(); err != nil {
			return err
		}
	}
	sgn, l2, err := newSigner(cfg, acct)
	if err != nil {
		return err
	}

	// The journal, before the client: the client's rate-limit buckets
	// start from what the previous process spent (wire_ratespent.go).
	store, err := state.Open(d.statePath(), state.Options{LockTimeout: cfg.State.LockTimeout.Std(), Account: sgn.Address()})
	if err != nil {
		return fmt.Errorf("state journal: %w", err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error().Err(err).Msg("closing the journal")
		}
	}()
	prune := startPruner(store, cfg.State.Retention.Std(), cfg.State.PruneBatch, time.Now, log)
	defer prune.stop()

	d.client, err = newClient(cfg, urls, d.authFor(l2), d.obs.clientObserver(), spentOptions(store, log)...)
	if err != nil {
		return fmt.Errorf("exchange client: %w", err)
	}
	saver, err := startSpentSaver(d.client, store, log)
	if err != nil {
		return err
	}
	defer func() { // after the shutdown's cancels: nothing is sent any more
		if err := saver.retire(); err != nil {
			log.Error().Err(err).Msg("stopping")
		}
	}()
	d.obs.buckets = d.client.Buckets
	d.status = newStatusSource(time.Now(), d.flags.dryRun, d.health, d.obs, d.client.Buckets, cfg.Risk.MaxCollateralAtRisk)
	log.Info().Str("address", sgn.Address()).Str("maker", sgn.Maker()).Int("signature_type", acct.sigType).Msg("account")

	// Metrics.
	if cfg.Metrics.Enabled {
		reg, m, err := metrics.NewRegistry()
		if err != nil {
			return err
		}
		d.obs.m = m
		m.LastCycle.Set(unixSeconds(d.start)) // until the first cycle: "no completed cycle since the start"
		addr, stopMetrics, err := metrics.Serve(sigCtx, cfg.Metrics.Listen, cfg.Metrics.AllowPublic, metrics.Handler(reg, d.health, d.status.route()))
		if err != nil {
			return err
		}
		defer stopMetrics()
		log.Info().Str("listen", "http://"+addr.String()).Str("status", "mmbot status --addr "+addr.String()).Msg("metrics, /healthz and /readyz")
	}

	// Market selection is the first call to the exchange: when it cannot be
	// reached, wait for it (not ready; SIGTERM ends the wait and exits 0).
	// Then the credentials are proved (run_start.go): refused, the start
	// ends at once, nothing quoted.
	var markets []strategy.Market
	d.health.SetReady(false, "waiting for the exchange")
	err = d.startRetry().do(sigCtx, "market selection", func(ctx context.Context) error {
		var err error
		markets, err = selectMarkets(ctx, d.client, &cfg.Markets, d.obs.marketRefused)
		return err
	})
	// Then the credentials, before anything is read or sent with them (a
	// dry run sends nothing authenticated).
	if err == nil && !d.flags.dryRun {
		err = d.checkCredentials(sigCtx)
	}
	if sigCtx.Err() != nil {
		_ = notify.Stopping()
		log.Info().Err(err).Msg("stopped while waiting for the exchange: nothing was quoted")
		return nil
	}
	if err != nil {
		return err
	}
	for _, m := range markets {
		log.Info().Str("market", m.ConditionID).Str("slug", m.Slug).Str("tick", m.Tick.String()).Str("min_size", m.MinSize.String()).
			Bool("neg_risk", m.NegRisk).Msg("quoting")
	}
	venue, err := d.venue(markets)
	if err != nil {
		return err
	}

	params, est, err := strategyParams(cfg)
	if err != nil {
		return err
	}
	d.kill, err = risk.NewKillSwitch(killConfig(&cfg.Risk))
	if err != nil {
		return err // "risk: kill switch: ..."
	}
	d.obs.watchRisk(d.kill, &cfg.Risk)
	d.status.kill.Store(d.kill)
	// A long throttle on cancels trips it (the client's observer tells).
	d.obs.cancelKill.Store(d.kill)
	cp, err := parseCrashpoint(e.getenv(crashpointEnv)) // a test hook; unset wraps nothing
	if err != nil {
		return err
	}
	lc := loopConfig(cfg, markets, params, est, d.kill)
	daemonLoop(&lc, cfg, d.flags.dryRun)
	if !d.flags.dryRun {
		if hasBuilderCode(cfg.Account.BuilderCode) {
			// the builder-trade history lists our orders' fills: read each cycle
			lc.History = builderHistory{c: d.client, maker: sgn.Maker(), max: historyMaxTrades}
		} else {
			lc.Finder = builderFinder{c: d.client, maker: sgn.Maker(), max: 2000}
			log.Info().Msg("account.builder_code is not set: no trade history (GET /builder/trades lists only orders with a builder code); fills are found by reading orders back within strategy.order_read_share")
		}
	}
	d.loop, err = loop.New(lc, cp.venue(venue), orderSigner{sgn}, cp.journal(journal{store}),
		exchange.SystemClock{}, log, d.obs)
	if err != nil {
		return err
	}
	d.status.loop.Store(d.loop)
	gc := d.guard
	gc.Observe = d.onGuard
	guard, err := loop.NewGuard(d.loop, gc)
	if err != nil {
		return err
	}

	_ = notify.Status("reconciling the journal with the exchange")
	if err := d.loop.Start(sigCtx); err != nil {
		return fmt.Errorf("reconciliation (nothing was quoted): %w", err)
	}
	_ = notify.Ready()
	d.health.SetReady(true, "")
	log.Info().Int("markets", len(markets)).Msg("ready: quoting")

	runCtx := sigCtx
	if d.flags.duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(sigCtx, d.flags.duration)
		defer cancel()
	}
	stopSignals := d.handleSignals(runCtx)
	defer stopSignals()
	stopStatus := d.showStatus(runCtx)
	guardDone := make(chan struct{})
	go func() {
		defer close(guardDone)
		_ = guard.Run(runCtx)
	}()
	_ = d.loop.Run(runCtx, d.onCycle)
	<-guardDone // Run returns once runCtx ended: so does the guard
	stopStatus()

	// Shutdown: stop quoting, cancel everything, wait for confirmation.
	_ = notify.Stopping()
	d.health.SetReady(false, "shutting down")
	log.Info().Msg("stopping: cancelling every live order")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.Shutdown.CancelTimeout.Std())
	defer cancel()
	shutErr := d.loop.Shutdown(sctx)
	d.summary()
	if errors.Is(shutErr, loop.ErrCredentialsRefused) {
		return fmt.Errorf("shutdown: %w; fix the credentials (%s), then run `mmbot cancel-all`", shutErr, credentialsHint(shutErr))
	}
	if shutErr != nil {
		return fmt.Errorf("shutdown: %w (run `mmbot cancel-all` to finish)", shutErr)
	}
	log.Info().Msg("stopped: no live orders")
	return nil
}

// startRetry is the wait for an exchange that cannot be reached at start,
// as [exchange.start_retry] configures it.
func (d *daemon) startRetry() *startRetry {
	s := &d.cfg.Exchange.StartRetry
	return &startRetry{base: s.BaseDelay.Std(), max: s.MaxDelay.Std(), giveUp: s.GiveUpAfter.Std(), clock: exchange.SystemClock{}, log: d.log,
		status: func(msg string) {
			_ = d.notify.Status(msg)
			d.health.SetReady(false, msg)
		},
		extend: func(t time.Duration) { _ = d.notify.ExtendTimeout(t) }}
}

// onCycle runs after every cycle: the watchdog is petted only while cycles
// complete, readiness follows the kill switch.
func (d *daemon) onCycle(err error) {
	st := d.loop.Status()
	d.status.sample(time.Now())
	if err == nil {
		_ = d.notify.Watchdog()
	}
	if st.Tripped {
		d.health.SetReady(false, "kill switch: "+st.TripReason)
	} else {
		d.health.SetReady(true, "")
	}
	if st.Tally.Cycles%10 == 1 {
		_ = d.notify.Status(fmt.Sprintf("%d markets, %d live orders, %d fills, pnl %s", len(st.Markets), st.LiveOrders, st.Tally.Fills, signed(st.Tally.MarkedPnL)))
	}
}

// handleSignals reloads strategy parameters on SIGHUP (an invalid new config
// is rejected and the old one kept) and resets the kill switch on SIGUSR1.
func (d *daemon) handleSignals(ctx context.Context) func() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case s := <-ch:
				switch s {
				case syscall.SIGHUP:
					d.reloadParams()
				case syscall.SIGUSR1:
					t := d.kill.Reset("SIGUSR1")
					d.log.Warn().Str("cleared", t.Reason.String()).Msg("kill switch reset by operator")
				}
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		<-done
	}
}

func (d *daemon) reloadParams() {
	_ = d.notify.Reloading(monotonic())
	defer func() { _ = d.notify.Ready() }()
	cfg, err := d.reload()
	if err != nil {
		d.log.Error().Err(err).Msg("SIGHUP: new configuration rejected; keeping the old one")
		return
	}
	p, _, err := strategyParams(cfg)
	if err != nil {
		d.log.Error().Err(err).Msg("SIGHUP: new strategy parameters rejected; keeping the old ones")
		return
	}
	if err := d.loop.SetParams(p); err != nil {
		d.log.Error().Err(err).Msg("SIGHUP: new strategy parameters rejected; keeping the old ones")
		return
	}
	d.status.setLimit(cfg.Risk.MaxCollateralAtRisk)
	d.log.Info().Msg("SIGHUP: strategy parameters will apply from the next cycle")
}

// showStatus prints the status table every 5 seconds on stdout when it is
// a terminal (or --status on): the table of `mmbot status`.
func (d *daemon) showStatus(ctx context.Context) func() {
	on := d.flags.status == "on" || (d.flags.status == "auto" && isTerminal(d.e.stdout))
	if !on {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-t.C:
				doc := d.status.doc(time.Now())
				fmt.Fprintln(d.e.stdout)
				_ = writeStatusTable(d.e.stdout, &doc, time.Local)
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// summary prints what the session did.
func (d *daemon) summary() {
	st := d.loop.Status()
	t := st.Tally
	fmt.Fprintf(d.e.stdout, "\nsummary: %s, %d markets, %d cycles\n", span(time.Since(d.start)), len(st.Markets), t.Cycles)
	d.paperSummary(d.e.stdout)
	fmt.Fprintf(d.e.stdout, "  fills %d, volume %s shares, notional %s\n", t.Fills, t.Volume.StringFixed(2), t.Notional.StringFixed(2))
	fmt.Fprintf(d.e.stdout, "  pnl %s marked, %s realized\n", signed(t.MarkedPnL), signed(t.RealizedPnL))
	if earned, daily, share := st.RewardTotals(); earned.IsPositive() || share > 0 {
		fmt.Fprintf(d.e.stdout, "  rewards (estimated, not in pnl) %s earned, %.2f a day, %.2f%% mean share of the paying markets' scores\n",
			earned.StringFixed(4), daily, 100*share)
	}
	fmt.Fprintf(d.e.stdout, "  orders sent %d (refused %d), cancels %d (failed %d), risk rejections %d%s\n", t.Placed+t.PlaceFailed, t.PlaceFailed,
		t.Cancelled, t.CancelFailed, t.Rejected, countsSuffix(reasonCounts(&t.RejectedBy)))
	if held := reasonCounts(&t.HeldBack); len(held) > 0 {
		fmt.Fprintf(d.e.stdout, "  quotes held back by limits %s\n", countsList(held))
	}
	inUse, orders := st.AtRisk()
	limit := "no limit"
	if l := d.status.collateralLimit(); l.IsPositive() {
		limit = "limit " + l.String()
	}
	fmt.Fprintf(d.e.stdout, "  collateral in use %s (open BUY orders %s, positions %s; %s)\n", inUse.StringFixed(2), orders.StringFixed(2),
		inUse.Sub(orders).StringFixed(2), limit)
	fmt.Fprintf(d.e.stdout, "  429s %d, retries %d, live orders left %d\n", d.obs.got429.Load(), d.obs.retries.Load(), st.LiveOrders)
}

// monotonic reads CLOCK_MONOTONIC, which systemd's RELOADING=1 wants.
func monotonic() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

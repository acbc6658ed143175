package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/addrfile"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/internal/sdnotify"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy/loop"
)

// A phase is one named step of the daemon's life. Its run may return an
// undo, which runs when the daemon stops, after the later phases' undos:
// the phases start in order and are torn down in reverse, whether the run
// ended normally or a phase failed.
type phase struct {
	name string
	run  func(ctx context.Context) (undo func(), err error)
}

// errStopped ends the phases early without an error: the context ended
// while the daemon waited for the exchange, before anything was quoted.
var errStopped = errors.New("stopped before quoting")

// runPhases runs the phases in order until one fails, then the undos of
// those that ran, in reverse.
func runPhases(ctx context.Context, phases []phase) error {
	var undos []func()
	defer func() {
		for i := len(undos) - 1; i >= 0; i-- {
			undos[i]()
		}
	}()
	for _, p := range phases {
		undo, err := p.run(ctx)
		if undo != nil {
			undos = append(undos, undo)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// phases is the daemon's life, start to end (docs/daemon.md, "Start and
// shutdown").
func (d *Daemon) phases() []phase {
	return []phase{
		{"open the exchange", d.openExchange},
		{"open the journal", d.openJournal},
		{"connect the client", d.connectClient},
		{"start metrics", d.startMetrics},
		{"wait for the exchange", d.waitForExchange},
		{"build the loop", d.buildLoop},
		{"reconcile the journal", d.reconcile},
		{"serve", d.serve},
	}
}

// Run runs the daemon until ctx ends (or the duration of WithDuration
// passes): it reconciles the journal with the exchange, quotes, then
// cancels every live order and prints the summary. A context that ends
// while the exchange is still being waited for ends Run with nil, nothing
// quoted. Run is called once.
func (d *Daemon) Run(ctx context.Context) error {
	d.start = time.Now()
	notify, err := sdnotify.New(d.opt.getenv("NOTIFY_SOCKET"))
	if err != nil {
		return err
	}
	d.notify = notify
	d.health = &metrics.Health{}
	d.obs = &observer{log: d.log}
	err = runPhases(ctx, d.phases())
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// openExchange starts the embedded simulated exchange or takes the
// configured URLs, and builds the account and its signer.
func (d *Daemon) openExchange(context.Context) (func(), error) {
	cfg, log := d.cfg, d.log
	urls, acct, stopExchange, err := assemble.Endpoints(cfg)
	if err != nil {
		return nil, err
	}
	d.urls = urls
	if cfg.Exchange.EmbeddedSim {
		log.Info().Str("clob", urls.CLOB).Str("data", urls.Data).Str("catalog", urls.Catalog).Msg("embedded simulated exchange started")
	} else {
		log.Info().Str("clob", assemble.SafeURL(urls.CLOB)).Str("data", assemble.SafeURL(urls.Data)).Str("catalog", assemble.SafeURL(urls.Catalog)).Msg("exchange")
	}
	if !cfg.Exchange.EmbeddedSim && !d.opt.dryRun {
		acct, err = assemble.LoadAccount(cfg, d.opt.getenv, func(w string) { log.Warn().Msg(w) })
		if err != nil {
			return stopExchange, err
		}
	}
	if d.opt.dryRun { // a throwaway account: see paper.go
		if acct, err = assemble.PaperAccount(); err != nil {
			return stopExchange, err
		}
	}
	d.acct = acct
	d.sgn, d.l2, err = assemble.NewSigner(cfg, acct)
	return stopExchange, err
}

// openJournal opens the journal (with the embedded simulated exchange, after
// setting a previous run's journal aside) and starts its pruner. It comes
// before the client: the client's rate-limit buckets start from what the
// previous process spent (assemble.SpentOptions).
func (d *Daemon) openJournal(context.Context) (func(), error) {
	cfg, log := d.cfg, d.log
	if cfg.Exchange.EmbeddedSim {
		// The embedded exchange starts empty every run: a previous run's
		// journal belongs to an exchange that is gone (docs/daemon.md).
		aside, err := state.SetAside(d.statePath(), time.Now(), state.Options{LockTimeout: cfg.State.LockTimeout.Std()})
		if err != nil {
			return nil, fmt.Errorf("state journal: %w", err)
		}
		if aside != "" {
			log.Warn().Str("journal", d.statePath()).Str("set_aside", aside).
				Msg("the embedded simulated exchange starts empty: the previous run's journal (its orders and positions) was set aside, this run starts fresh")
		}
	}
	store, err := state.Open(d.statePath(), state.Options{LockTimeout: cfg.State.LockTimeout.Std(), Account: d.sgn.Address()})
	if err != nil {
		return nil, fmt.Errorf("state journal: %w", err)
	}
	d.store = store
	d.obs.rewards = newRewardJournal(store, log)
	prune := startPruner(store, cfg.State.Retention.Std(), cfg.State.PruneBatch, time.Now, log)
	return func() {
		prune.stop()
		if err := store.Close(); err != nil {
			log.Error().Err(err).Msg("closing the journal")
		}
	}, nil
}

// connectClient builds the exchange client and the saver of what it
// spends of the rate limits, and the status document's source.
func (d *Daemon) connectClient(context.Context) (func(), error) {
	cfg, log := d.cfg, d.log
	var err error
	d.client, err = assemble.NewClient(cfg, d.opt.version, d.urls, d.authFor(d.l2), d.obs.clientObserver(), assemble.SpentOptions(d.store, log)...)
	if err != nil {
		return nil, fmt.Errorf("exchange client: %w", err)
	}
	saver, err := assemble.StartSpentSaver(d.client, d.store, log)
	if err != nil {
		return nil, err
	}
	d.obs.buckets = d.client.Buckets
	d.status = newStatusSource(time.Now(), d.opt.buildInfo, d.opt.dryRun, d.health, d.obs, d.client.Buckets, cfg.Risk.MaxCollateralAtRisk)
	log.Info().Str("address", d.sgn.Address()).Str("maker", d.sgn.Maker()).Int("signature_type", d.acct.SignatureType()).Msg("account")
	return func() { // after the shutdown's cancels: nothing is sent any more
		if err := saver.Retire(); err != nil {
			log.Error().Err(err).Msg("stopping")
		}
	}, nil
}

// startMetrics serves /metrics, /healthz, /readyz and /status when
// metrics.enabled.
func (d *Daemon) startMetrics(ctx context.Context) (func(), error) {
	cfg := d.cfg
	if !cfg.Metrics.Enabled {
		return nil, nil
	}
	reg, m, err := metrics.NewRegistry()
	if err != nil {
		return nil, err
	}
	d.obs.m = m
	m.LastCycle.Set(unixSeconds(d.start)) // until the first cycle: "no completed cycle since the start"
	addr, stopMetrics, err := metrics.Serve(ctx, cfg.Metrics.Listen, cfg.Metrics.AllowPublic, metrics.Handler(reg, d.health, d.status.route()))
	if err != nil {
		return nil, err
	}
	d.log.Info().Str("listen", "http://"+addr.String()).Str("status", "mmbot status --addr "+addr.String()).Msg("metrics, /healthz and /readyz")
	// The address it bound, published beside the journal (and in systemd's
	// runtime directory) so that mmbot status finds a port the system
	// chose; removed before the listener stops.
	var removes []func() error
	undo := func() {
		for _, rm := range removes {
			_ = rm()
		}
		stopMetrics()
	}
	for _, p := range []string{addrfile.PathFor(d.statePath()), addrfile.RuntimePath(d.opt.getenv("RUNTIME_DIRECTORY"))} {
		if p == "" {
			continue
		}
		rm, err := addrfile.Publish(p, addrfile.Record{Addr: addr.String(), PID: os.Getpid(), Started: d.start.UTC()})
		if err != nil {
			undo()
			return nil, err
		}
		removes = append(removes, rm)
	}
	return undo, nil
}

// waitForExchange selects the markets, the first call to the exchange:
// when it cannot be reached, it is waited for (not ready; the context's end
// ends the wait, and Run returns nil). Then the credentials are proved
// (start.go): refused, the start ends at once, nothing quoted.
func (d *Daemon) waitForExchange(ctx context.Context) (func(), error) {
	cfg, log := d.cfg, d.log
	d.health.SetReady(false, "waiting for the exchange")
	err := d.startRetry().do(ctx, "market selection", func(ctx context.Context) error {
		var err error
		d.markets, err = assemble.SelectMarkets(ctx, d.client, &cfg.Markets, d.obs.marketRefused)
		return err
	})
	// Then the credentials, before anything is read or sent with them (a
	// dry run sends nothing authenticated).
	if err == nil && !d.opt.dryRun {
		err = d.checkCredentials(ctx)
	}
	if ctx.Err() != nil {
		_ = d.notify.Stopping()
		log.Info().Err(err).Msg("stopped while waiting for the exchange: nothing was quoted")
		return nil, errStopped
	}
	if err != nil {
		return nil, err
	}
	for _, m := range d.markets {
		log.Info().Str("market", m.ConditionID).Str("slug", m.Slug).Str("tick", m.Tick.String()).Str("min_size", m.MinSize.String()).
			Bool("neg_risk", m.NegRisk).Msg("quoting")
	}
	return nil, nil
}

// buildLoop builds the venue, the kill switch, the loop and its guard.
func (d *Daemon) buildLoop(context.Context) (func(), error) {
	cfg, log := d.cfg, d.log
	venue, err := d.venue(d.markets)
	if err != nil {
		return nil, err
	}
	params, est, err := assemble.StrategyParams(cfg)
	if err != nil {
		return nil, err
	}
	d.kill, err = risk.NewKillSwitch(assemble.KillConfig(&cfg.Risk))
	if err != nil {
		return nil, err // "risk: kill switch: ..."
	}
	d.obs.watchRisk(d.kill, &cfg.Risk)
	d.status.kill.Store(d.kill)
	// A long throttle on cancels trips it (the client's observer tells).
	d.obs.cancelKill.Store(d.kill)
	cp, err := crashpointFrom(d.opt.getenv) // a test hook, only in the test build; unset wraps nothing
	if err != nil {
		return nil, err
	}
	lc := assemble.LoopConfig(cfg, d.markets, params, est, d.kill)
	assemble.DaemonLoop(&lc, cfg, d.opt.dryRun)
	if !d.opt.dryRun {
		maker := d.sgn.Maker()
		if hasBuilderCode(cfg.Account.BuilderCode) {
			// the builder-trade history lists our orders' fills: read each cycle
			lc.History = builderHistory{c: d.client, maker: maker, max: historyMaxTrades}
		} else {
			lc.Finder = builderFinder{c: d.client, maker: maker, max: 2000}
			log.Info().Msg("account.builder_code is not set: no trade history (GET /builder/trades lists only orders with a builder code); fills are found by reading orders back within strategy.order_read_share")
		}
	}
	d.loop, err = loop.New(lc, cp.venue(venue), assemble.OrderSigner{Signer: d.sgn}, cp.journal(assemble.Journal{Store: d.store}),
		exchange.SystemClock{}, log, d.obs)
	if err != nil {
		return nil, err
	}
	d.status.loop.Store(d.loop)
	gc := d.guard
	gc.Observe = d.onGuard
	gc.OnBlind = d.onBlind
	d.guarder, err = loop.NewGuard(d.loop, gc)
	return nil, err
}

// reconcile settles every non-final order of the journal with the exchange
// before anything is quoted; then the daemon is ready.
func (d *Daemon) reconcile(ctx context.Context) (func(), error) {
	_ = d.notify.Status("reconciling the journal with the exchange")
	if err := d.loop.Start(ctx); err != nil {
		return nil, fmt.Errorf("reconciliation (nothing was quoted): %w", err)
	}
	_ = d.notify.Ready()
	d.health.SetReady(true, "")
	d.log.Info().Int("markets", len(d.markets)).Msg("ready: quoting")
	return nil, nil
}

// serve quotes until ctx ends (or the duration passes), then shuts down:
// stop quoting, cancel everything, wait for confirmation, print the
// summary.
func (d *Daemon) serve(ctx context.Context) (func(), error) {
	runCtx := ctx
	if d.opt.duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, d.opt.duration)
		defer cancel()
	}
	stopSignals := d.handleSignals(runCtx)
	defer stopSignals()
	stopStatus := d.showStatus(runCtx)
	guardDone := make(chan struct{})
	go func() {
		defer close(guardDone)
		_ = d.guarder.Run(runCtx)
	}()
	_ = d.loop.Run(runCtx, d.onCycle)
	<-guardDone // Run returns once runCtx ended: so does the guard
	stopStatus()
	return nil, d.shutdown()
}

// shutdown stops quoting, cancels every live order within
// shutdown.cancel_timeout and prints the summary.
func (d *Daemon) shutdown() error {
	_ = d.notify.Stopping()
	d.health.SetReady(false, "shutting down")
	d.log.Info().Msg("stopping: cancelling every live order")
	sctx, cancel := context.WithTimeout(context.Background(), d.cfg.Shutdown.CancelTimeout.Std())
	defer cancel()
	shutErr := d.loop.Shutdown(sctx)
	if d.obs.rewards != nil {
		st := d.loop.Status()
		d.obs.rewards.observe(&st, true)
	}
	d.summary()
	if errors.Is(shutErr, loop.ErrCredentialsRefused) {
		return fmt.Errorf("shutdown: %w; fix the credentials (%s), then run `mmbot cancel-all`", shutErr, assemble.CredentialsHint(shutErr))
	}
	if shutErr != nil {
		return fmt.Errorf("shutdown: %w (run `mmbot cancel-all` to finish)", shutErr)
	}
	d.log.Info().Msg("stopped: no live orders")
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/logging"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy/loop"
)

// cmdCancelAll cancels every live order the journal owns and waits until the
// exchange confirms each. The daemon must not be running (it holds the
// journal's lock; on SIGTERM it cancels everything itself).
func cmdCancelAll(e *env, args []string) error {
	fs := pflag.NewFlagSet("cancel-all", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	configs.RegisterFlags(fs)
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for the exchange to confirm")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	cfg, err := configs.Load(configs.LoadOptions{Environ: e.environ, Flags: fs})
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if cfg.Exchange.EmbeddedSim {
		return errors.New("exchange.embedded_sim: the embedded simulated exchange lives only inside `mmbot run`, which cancels its orders on exit")
	}
	log, err := logging.New(logging.Options{Level: cfg.Log.Level, Format: cfg.Log.Format, Out: e.stderr, IsTerminal: isTerminal(e.stderr)})
	if err != nil {
		return err
	}
	acct, err := loadAccount(cfg, e.getenv, func(w string) { log.Warn().Msg(w) })
	if err != nil {
		return err
	}
	sgn, l2, err := newSigner(cfg, acct)
	if err != nil {
		return err
	}
	client, err := newClient(cfg, exchange.Endpoints{Data: cfg.Exchange.DataURL, Catalog: cfg.Exchange.CatalogURL, CLOB: cfg.Exchange.CLOBURL}, l2, exchange.Observer{})
	if err != nil {
		return fmt.Errorf("exchange client: %w", err)
	}
	store, err := state.Open(cfg.State.Path, state.Options{LockTimeout: cfg.State.LockTimeout.Std(), Account: sgn.Address()})
	if err != nil {
		if errors.Is(err, state.ErrLocked) {
			return fmt.Errorf("%w (stop the daemon first: on SIGTERM it cancels every order itself)", err)
		}
		return fmt.Errorf("state journal: %w", err)
	}
	defer store.Close()
	ctx, cancel := context.WithTimeout(e.ctx, *timeout)
	defer cancel()
	tally, err := loop.CancelAll(ctx, client, journal{store}, exchange.SystemClock{}, log)
	fmt.Fprintf(e.stdout, "cancelled %d orders (%d cancels failed); %d fills found while reconciling\n", tally.Cancelled, tally.CancelFailed, tally.Fills)
	if err != nil {
		return fmt.Errorf("cancel-all: %w", err)
	}
	left, err := store.NonFinalOrders()
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("cancel-all: %d orders are still not confirmed final; run it again", len(left))
	}
	fmt.Fprintln(e.stdout, "no live orders left")
	return nil
}

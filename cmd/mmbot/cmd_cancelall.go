package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/daemon"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/logging"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy/loop"
)

const cancelAllLong = `Cancels every live order the state journal owns and waits until the
exchange confirms each one final; it prints how many it cancelled and the
fills it found while reconciling, and fails when an order is still not
confirmed final (run it again). The daemon must not be running: it holds the
journal's lock, and on SIGTERM it cancels everything itself. It loads the
configuration as mmbot run does (docs/operations.md, "The journal and
recovery").

The exchange has no endpoint that lists an account's open orders, so only
orders the journal knows are cancelled.`

const cancelAllExample = `  systemctl stop mmbot
  mmbot cancel-all -c /etc/mmbot/mmbot.toml --state-path /var/lib/mmbot/mmbot.db`

// newCancelAllCmd is "mmbot cancel-all", which cancels every live order
// the journal owns and waits until the exchange confirms each. The daemon
// must not be running (it holds the journal's lock; on SIGTERM it cancels
// everything itself).
func newCancelAllCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "cancel-all -c mmbot.toml [flags]",
		Short:   "cancel every live order the journal owns",
		Long:    cancelAllLong,
		Example: cancelAllExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	configs.RegisterFlags(fs)
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for the exchange to confirm")
	cmd.RunE = func(*cobra.Command, []string) error { return cancelAll(e, fs, timeout) }
	return cmd
}

// cancelAll runs "mmbot cancel-all" once its flags are parsed into fs.
func cancelAll(e *env, fs *pflag.FlagSet, timeout *time.Duration) error {
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
	acct, err := assemble.LoadAccount(cfg, e.getenv, func(w string) { log.Warn().Msg(w) })
	if err != nil {
		return err
	}
	sgn, l2, err := assemble.NewSigner(cfg, acct)
	if err != nil {
		return err
	}
	store, err := state.Open(cfg.State.Path, state.Options{LockTimeout: cfg.State.LockTimeout.Std(), Account: sgn.Address()})
	if err != nil {
		if errors.Is(err, state.ErrLocked) {
			return fmt.Errorf("%w (stop the daemon first: on SIGTERM it cancels every order itself)", err)
		}
		return fmt.Errorf("state journal: %w", err)
	}
	defer store.Close()
	// The daemon's rate-limit record: its requests still count at the
	// exchange, and this command's count for its successor.
	urls, _, err := assemble.ConfiguredURLs(cfg)
	if err != nil {
		return err
	}
	clientObs, _ := daemon.LogObserver(log)
	client, err := assemble.NewClient(cfg, version, urls, l2, clientObs, assemble.SpentOptions(store, log)...)
	if err != nil {
		return fmt.Errorf("exchange client: %w", err)
	}
	saver, err := assemble.StartSpentSaver(client, store, log)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(e.ctx, *timeout)
	defer cancel()
	tally, err := loop.CancelAll(ctx, client, assemble.Journal{Store: store}, exchange.SystemClock{}, log)
	if rerr := saver.Retire(); rerr != nil {
		log.Error().Err(rerr).Msg("cancel-all")
	}
	if errors.Is(err, loop.ErrCredentialsRefused) { // nothing was cancelled: retrying would be refused the same way
		return fmt.Errorf("%w; nothing was cancelled: %s, then run it again", err, assemble.CredentialsHint(err))
	}
	fmt.Fprintf(e.stdout, "cancelled %d orders (%d cancels failed); %d fills found while reconciling\n", tally.Cancelled, tally.CancelFailed, tally.Fills)
	if err != nil {
		return err // "mmbot cancel-all: " says the rest
	}
	left, err := store.NonFinalOrders()
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("%d orders are still not confirmed final; run it again", len(left))
	}
	fmt.Fprintln(e.stdout, "no live orders left")
	return nil
}

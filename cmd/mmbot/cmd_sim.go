package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
)

const simLong = `Runs the simulated exchange on one loopback listener, by default
` + simDefaultAddr + ` (the address configs/mmbot.example.toml points at): the
data, catalog and order-book APIs under /data, /catalog and /clob. It
creates --accounts funded accounts (fresh keys) plus one per --address (keys
you hold), writes their API credentials (and generated private keys) and
the three base URLs to --creds-out with mode 0600, prints the URLs and the
file's path, and runs until SIGINT or SIGTERM. A config whose
account.credentials_file is that file trades as its first account, and
takes from it the URLs the config leaves empty. With --record it also
writes its own books and trades to a recording (docs/data-format.md),
committed on shutdown: format version 2 (.mmrec) unless the name ends in
.jsonl.gz or --record-format v1 asks for version 1.

--simulated-clock D serves nothing: it runs the flow on the simulated clock
for D of market time, as fast as the machine goes (an hour in about a
second), writes the recording to --record (with the markets' resolutions)
and exits; the clock starts at 2026-01-05T00:00:00Z, so the recording
depends only on the flags. --scenario NAME takes a scoreboard scenario's
flow and catalog terms (docs/scoreboard.md). docs/simulator.md describes
every flag.`

const simExample = `  mmbot sim    # on ` + simDefaultAddr + `, one account in sim-creds.json
  mmbot sim --addr 127.0.0.1:0 --accounts 2 --creds-out /tmp/creds.json    # any free port
  mmbot sim --markets 6 --record rec.mmrec    # Ctrl-C after a few minutes, then mmbot backtest
  mmbot sim --simulated-clock 1h --record rec.mmrec    # an hour of market in about a second
  mmbot sim --simulated-clock 1h --markets 8 --scenario informed --record informed.mmrec
  mmbot sim --fault-error-rate 0.05 --maintenance-after 10m --maintenance-for 2m
  mmbot sim --stall "POST /books" --stall-after 12s     # books never answer from second 12 on`

// simDefaultAddr is where mmbot sim listens by default: the address of the
// URLs in configs/mmbot.example.toml, so that the example works as it is.
const simDefaultAddr = "127.0.0.1:8080"

// simFlags are the parsed flags of mmbot sim.
type simFlags struct {
	addr, credsOut, catalogFile, record, state    string
	requestLog, tradeLog                          string
	recordFormat                                  string
	allowPublic, noFlow, noRateLimits             bool
	seed                                          uint64
	markets, accounts, sigType                    int
	addresses, allowlist                          []string
	fund, shares                                  string
	flowRate, informed, volatility                float64
	step, authWindow                              time.Duration
	faultErr, faultDB, faultDelayRate, faultDrop  float64
	faultDelay, maintenanceAfter, maintenanceSpan time.Duration
	stall                                         []string
	stallAfter, stallSpan                         time.Duration
	garbageRate                                   float64
	garbageKind                                   string
	garbageMarkets                                []string
	simClock                                      time.Duration
	scenario                                      string
	settleDelay, settleConfirm                    time.Duration
	settleFailRate                                float64
}

func (f *simFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.addr, "addr", simDefaultAddr, "listen `address` (loopback only unless --allow-public; 127.0.0.1:0: any free port)")
	fs.BoolVar(&f.allowPublic, "allow-public", false, "allow a non-loopback listen address")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the catalog, the flow and the faults")
	fs.IntVar(&f.markets, "markets", 20, "number of generated markets")
	fs.StringVar(&f.catalogFile, "catalog-file", "", "load the catalog from this JSON `file` instead of generating one")
	fs.IntVar(&f.accounts, "accounts", 1, "accounts to create with fresh keys")
	fs.StringSliceVar(&f.addresses, "address", nil, "also create an account for this existing signing `address` (repeatable)")
	fs.IntVar(&f.sigType, "signature-type", 0, "signature type of the created accounts: 0 (EOA) or 3 (deposit wallet)")
	fs.StringVar(&f.state, "state", "", "keep the exchange (accounts with their keys and API credentials, balances, orders, trades, flow) in this `file`: loaded at start when it exists, saved on shutdown and every 30s (mode 0600)")
	fs.StringVar(&f.credsOut, "creds-out", "sim-creds.json", "write the accounts' credentials to this `file` (mode 0600)")
	fs.StringVar(&f.fund, "fund", "10000", "collateral credited to each account")
	fs.StringVar(&f.shares, "shares", "0", "shares of both outcomes of every open market split from each account's fund")
	fs.Float64Var(&f.flowRate, "flow-rate", 0.2, "taker orders per market per second")
	fs.Float64Var(&f.informed, "informed", 0.3, "fraction of takers trading toward the fair value")
	fs.Float64Var(&f.volatility, "volatility", 0.3, "fair-value volatility in logit space per sqrt(hour)")
	fs.BoolVar(&f.noFlow, "no-flow", false, "no simulated order flow (no background makers or takers)")
	fs.DurationVar(&f.step, "step", 100*time.Millisecond, "time step of the flow")
	fs.DurationVar(&f.authWindow, "auth-window", 30*time.Second, "accepted |SVC_TIMESTAMP - now|")
	fs.BoolVar(&f.noRateLimits, "no-rate-limits", false, "do not enforce the rate caps")
	fs.StringSliceVar(&f.allowlist, "data-allowlist", nil, "restrict the data API to these IPs or CIDRs (repeatable)")
	fs.Float64Var(&f.faultErr, "fault-error-rate", 0, "fraction of requests answered 500")
	fs.Float64Var(&f.faultDB, "fault-db-rate", 0, `fraction of requests answered 500 "internal_error: unexpected database failure"`)
	fs.Float64Var(&f.faultDelayRate, "fault-delay-rate", 0, "fraction of requests delayed by --fault-delay")
	fs.DurationVar(&f.faultDelay, "fault-delay", 2*time.Second, "delay of a delayed request")
	fs.Float64Var(&f.faultDrop, "fault-drop-rate", 0, "fraction of responses cut off halfway (connection closed)")
	fs.DurationVar(&f.maintenanceAfter, "maintenance-after", 0, "start a maintenance window this long after start (with --maintenance-for)")
	fs.DurationVar(&f.maintenanceSpan, "maintenance-for", 0, "length of the maintenance window: order endpoints answer 503")
	fs.StringArrayVar(&f.stall, "stall", nil, `hold requests to this endpoint without an answer, e.g. "POST /books" (repeatable)`)
	fs.DurationVar(&f.stallAfter, "stall-after", 0, "start stalling the --stall endpoints this long after start")
	fs.DurationVar(&f.stallSpan, "stall-for", 0, "stop stalling them after this long (0: never)")
	fs.Float64Var(&f.garbageRate, "fault-garbage-rate", 0, "fraction of books POST /books answers as garbage (see --fault-garbage-kind)")
	fs.StringVar(&f.garbageKind, "fault-garbage-kind", "", "the garbage of a garbage book: "+strings.Join(sim.GarbageKinds, ", ")+` ("": one at random per book)`)
	fs.StringSliceVar(&f.garbageMarkets, "fault-garbage-markets", nil, "condition `ids` whose books are always answered as garbage (repeatable)")
	fs.DurationVar(&f.settleDelay, "settle-delay", 0, "settle matches over time: MATCHED for this long, then MINED (what a party received becomes usable), then CONFIRMED after --settle-confirm (0: at once)")
	fs.DurationVar(&f.settleConfirm, "settle-confirm", 0, "time from MINED to CONFIRMED (default 4 × --settle-delay)")
	fs.Float64Var(&f.settleFailRate, "fault-settle-fail-rate", 0, "fraction of matches whose settlement fails (RETRYING, then FAILED and reverted); needs --settle-delay")
	fs.StringVar(&f.record, "record", "", "record the exchange's books and trades to this `file` (.mmrec; .jsonl.gz for format version 1), committed on shutdown")
	fs.StringVar(&f.requestLog, "request-log", "", "write every request (arrival time, method, path, status, orders in a batch) to this `file` as JSON lines, flushed on shutdown")
	fs.StringVar(&f.tradeLog, "trade-log", "", "write every trade (time, both wallets and order ids, size, price) to this `file` as JSON lines, flushed on shutdown")
	fs.DurationVar(&f.simClock, "simulated-clock", 0, "serve nothing: run the flow on a simulated clock for this `duration` of market, as fast as possible, record it to --record and exit")
	fs.StringVar(&f.scenario, "scenario", "", "with --simulated-clock: the flow and catalog terms of this scoreboard scenario (`name`; docs/scoreboard.md)")
	fs.StringVar(&f.recordFormat, "record-format", "", "the recording's format `version`, v1 or v2 (default: by the file's name; v2 unless it ends in .jsonl.gz)")
}

// config turns the flags into a sim.Config.
func (f *simFlags) config(now time.Time) (sim.Config, error) {
	cfg := sim.Config{
		Addr: f.addr, AllowPublic: f.allowPublic, Seed: f.seed, Markets: f.markets, Step: f.step,
		AuthWindow: f.authWindow, NoRateLimits: f.noRateLimits, DataAllowlist: f.allowlist, StateFile: f.state,
		Flow: sim.FlowConfig{Disabled: f.noFlow, TakerRate: f.flowRate, Informed: f.informed, Volatility: f.volatility},
		Faults: sim.Faults{ErrorRate: f.faultErr, DBFailureRate: f.faultDB, DelayRate: f.faultDelayRate,
			Delay: f.faultDelay, DropRate: f.faultDrop, GarbageRate: f.garbageRate, GarbageKind: f.garbageKind, GarbageMarkets: f.garbageMarkets,
			SettleFailRate: f.settleFailRate},
		Settlement: sim.SettlementConfig{Delay: f.settleDelay, Confirm: f.settleConfirm},
	}
	if f.settleFailRate > 0 && f.settleDelay <= 0 {
		return cfg, usagef("--fault-settle-fail-rate needs --settle-delay")
	}
	if f.markets < 1 {
		return cfg, usagef("--markets %d: want at least 1", f.markets)
	}
	if f.flowRate == 0 { // zero means no takers here, not the default
		cfg.Flow.TakerRate = -1
	}
	if f.informed == 0 {
		cfg.Flow.Informed = -1
	}
	if f.maintenanceSpan > 0 {
		cfg.Faults.MaintenanceFrom = now.Add(f.maintenanceAfter)
		cfg.Faults.MaintenanceUntil = cfg.Faults.MaintenanceFrom.Add(f.maintenanceSpan)
	}
	if len(f.stall) > 0 {
		cfg.Faults.Stall, cfg.Faults.StallFrom = f.stall, now.Add(f.stallAfter)
		if f.stallSpan > 0 {
			cfg.Faults.StallUntil = cfg.Faults.StallFrom.Add(f.stallSpan)
		}
	}
	if f.catalogFile != "" {
		c, err := catalog.LoadFile(f.catalogFile)
		if err != nil {
			return cfg, err
		}
		cfg.Catalog = c
	}
	return cfg, nil
}

// newSimCmd is "mmbot sim", the simulated exchange; ready, when not nil, is
// called once the exchange serves (tests).
func newSimCmd(e *env, ready func(*sim.Exchange, sim.URLs)) *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:     "sim [flags]",
		Short:   "run the simulated exchange on loopback",
		Long:    simLong,
		Example: simExample,
		Args:    noArgs,
	}
	f.register(cmd.Flags())
	cmd.RunE = func(*cobra.Command, []string) error { return serveSim(e, f, ready) }
	return cmd
}

// serveSim runs "mmbot sim" once its flags are parsed into f.
func serveSim(e *env, f simFlags, ready func(*sim.Exchange, sim.URLs)) error {
	switch {
	case f.simClock < 0:
		return usagef("--simulated-clock %s: want a positive duration", f.simClock)
	case f.simClock > 0:
		return simulateClock(e, f)
	case f.scenario != "":
		return usagef("--scenario needs --simulated-clock")
	}
	if f.accounts < 0 {
		return usagef("--accounts %d: want 0 or more", f.accounts)
	}
	if f.sigType != 0 && f.sigType != 3 {
		return usagef("--signature-type %d: want 0 or 3", f.sigType)
	}
	fund, err := decimal.NewFromString(f.fund)
	if err != nil || fund.IsNegative() {
		return usagef("--fund %q: want a decimal >= 0", f.fund)
	}
	shares, err := decimal.NewFromString(f.shares)
	if err != nil || shares.IsNegative() {
		return usagef("--shares %q: want a decimal >= 0", f.shares)
	}
	cfg, err := f.config(time.Now())
	if err != nil {
		return err
	}
	var rec *simRecorder
	if f.record != "" {
		format, ferr := recordingFormat(f.record, f.recordFormat)
		if ferr != nil {
			return ferr
		}
		if rec, err = newSimRecorder(f.record, format); err != nil {
			return err
		}
		defer rec.abort() // after ex.Close; nothing once committed
		cfg.OnBook, cfg.OnTrade = rec.onBook, rec.onTrade
	}
	logs, err := openSimLogs(&cfg, f.requestLog, f.tradeLog)
	if err != nil {
		return err
	}
	defer func() { _ = logs.close() }() // idempotent; the checked close is after ex.Close
	ex, err := sim.New(cfg)
	if errors.Is(err, sim.ErrPublicAddr) {
		return usagef("--addr %s is not a loopback address; add --allow-public to listen on it", f.addr)
	}
	if err != nil {
		return err
	}
	defer ex.Close()
	if rec != nil {
		rec.start(ex, ex.Now())
	}
	var creds []sim.AccountCreds
	if ex.Restored() { // the saved accounts, keys and credentials; no new ones
		creds = ex.Credentials()
	}
	for i := 0; !ex.Restored() && i < f.accounts+len(f.addresses); i++ {
		opts := sim.AccountOptions{Fund: fund, Shares: shares, SignatureType: f.sigType}
		if i >= f.accounts {
			opts.Address, opts.SignatureType = f.addresses[i-f.accounts], 0
		}
		c, err := ex.CreateAccount(opts)
		if err != nil {
			if errors.Is(err, sim.ErrBadAccount) {
				return usagef("%v", err)
			}
			return err
		}
		creds = append(creds, c)
	}
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	urls, err := ex.Start(ctx)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w (another mmbot sim? stop it, or give another --addr: 127.0.0.1:0 takes any free port, "+
			"and mmbot run takes the URLs from the credentials file when its config has none)", err)
	}
	if err != nil {
		return err
	}
	credsPath := ""
	if f.credsOut != "" {
		if credsPath, err = filepath.Abs(f.credsOut); err != nil {
			return err
		}
		if err := sim.WriteCredentialsFile(credsPath, sim.NewCredentialsFile(urls, ex.ChainID(), creds)); err != nil {
			return err
		}
	}
	if ex.Restored() {
		fmt.Fprintf(e.stdout, "mmbot sim: serving %d markets restored from %s (its catalog, seed and accounts: --seed, --markets, --catalog-file, --accounts and --address are not used)\n",
			len(ex.Markets()), f.state)
	} else {
		fmt.Fprintf(e.stdout, "mmbot sim: serving %d markets (seed %d)\n", len(ex.Markets()), f.seed)
	}
	fmt.Fprintf(e.stdout, "data_url     %s\ncatalog_url  %s\nclob_url     %s\n", urls.Data, urls.Catalog, urls.CLOB)
	if credsPath != "" {
		fmt.Fprintf(e.stdout, "credentials  %s (%d accounts)\n", credsPath, len(creds))
	}
	if f.state != "" {
		fmt.Fprintf(e.stdout, "state        %s\n", f.state)
	}
	if rec != nil {
		fmt.Fprintf(e.stdout, "recording    %s\n", f.record)
	}
	if ready != nil {
		ready(ex, urls)
	}
	<-ctx.Done()
	if err := ex.Close(); err != nil {
		return fmt.Errorf("stopping: %w", err)
	}
	if err := logs.close(); err != nil {
		return err
	}
	if rec != nil {
		n, skipped, err := rec.close()
		if err != nil {
			return err // names the recording
		}
		fmt.Fprintf(e.stdout, "recorded     %d events to %s (%d skipped)\n", n, f.record, skipped)
	}
	fmt.Fprintln(e.stdout, "mmbot sim: stopped")
	return nil
}

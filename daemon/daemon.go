package daemon

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/paper"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/logging"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/internal/sdnotify"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/signer"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Daemon is one run of `mmbot run`: the wiring of DESIGN.md §2 and the
// process's life cycle (systemd, metrics, SIGHUP and SIGUSR1, shutdown).
// Build it with New, run it once with Run.
type Daemon struct {
	cfg   *configs.Config
	opt   options
	log   zerolog.Logger
	guard loop.GuardConfig // Observe is set by the build-the-loop phase

	// Set by the phases, in order (phases.go).
	start   time.Time
	notify  *sdnotify.Notifier
	health  *metrics.Health
	obs     *observer
	acct    *assemble.Account
	sgn     *signer.Signer
	l2      *signer.L2
	urls    exchange.Endpoints
	store   *state.Store
	client  *exchange.Client
	status  *statusSource
	markets []strategy.Market
	paper   *paper.Venue // dry run only
	loop    *loop.Loop
	kill    *risk.KillSwitch
	guarder *loop.Guard
}

// options are what New's Options set.
type options struct {
	dryRun      bool
	duration    time.Duration
	statusTable bool
	out         io.Writer
	logOut      io.Writer
	logTerminal bool
	getenv      func(string) string
	reload      func() (*configs.Config, error)
	version     string // the -ldflags version: the client's User-Agent
	buildInfo   string // the version as `mmbot version` prints it: the status document's
}

// An Option sets how New builds the daemon.
type Option func(*options)

// WithDryRun makes the run paper trading (`mmbot run --dry-run`): a
// throwaway account, the journal state.path + ".paper", a paper venue over
// the live client (paper.go).
func WithDryRun(on bool) Option { return func(o *options) { o.dryRun = on } }

// WithDuration makes Run stop by itself after d (0: only when its context
// ends).
func WithDuration(d time.Duration) Option { return func(o *options) { o.duration = d } }

// WithOutput is where the summary (and the live status table) is printed;
// io.Discard when not set.
func WithOutput(w io.Writer) Option { return func(o *options) { o.out = w } }

// WithStatusTable prints the status table on the output every 5 seconds
// while the daemon quotes.
func WithStatusTable(on bool) Option { return func(o *options) { o.statusTable = on } }

// WithLog is where the daemon logs, in the configuration's log.level and
// log.format; terminal says w is a terminal (log.format = "auto" then
// writes for people). Nothing is logged when not set.
func WithLog(w io.Writer, terminal bool) Option {
	return func(o *options) { o.logOut, o.logTerminal = w, terminal }
}

// WithGetenv is how the daemon reads its environment: NOTIFY_SOCKET, the
// key and secret sources the configuration names, and (in the test build)
// the crash point. No variable is set when not given.
func WithGetenv(getenv func(string) string) Option { return func(o *options) { o.getenv = getenv } }

// WithReload is how SIGHUP reads the new configuration; without it SIGHUP
// keeps the configuration the daemon was built with.
func WithReload(load func() (*configs.Config, error)) Option {
	return func(o *options) { o.reload = load }
}

// WithVersion names the binary: version (as set at build time) in the
// client's User-Agent, described (as `mmbot version` prints it) in the
// status document.
func WithVersion(version, described string) Option {
	return func(o *options) { o.version, o.buildInfo = version, described }
}

// New checks what the daemon needs of cfg beyond its validation (the
// guard's room for two cycles) and of the options, and builds its log; it
// starts nothing.
func New(cfg *configs.Config, opts ...Option) (*Daemon, error) {
	o := options{out: io.Discard, logOut: io.Discard, getenv: func(string) string { return "" }, version: "dev", buildInfo: "dev"}
	for _, opt := range opts {
		opt(&o)
	}
	if o.duration < 0 {
		return nil, errors.New("the duration must not be negative")
	}
	if o.reload == nil {
		o.reload = func() (*configs.Config, error) { return cfg, nil }
	}
	gc, err := assemble.GuardConfig(cfg)
	if err != nil {
		return nil, err
	}
	log, err := logging.New(logging.Options{Level: cfg.Log.Level, Format: cfg.Log.Format, Out: o.logOut, IsTerminal: o.logTerminal})
	if err != nil {
		return nil, err
	}
	return &Daemon{cfg: cfg, opt: o, log: log, guard: gc}, nil
}

// summary prints what the session did.
func (d *Daemon) summary() {
	st := d.loop.Status()
	t := st.Tally
	w := d.opt.out
	fmt.Fprintf(w, "\nsummary: %s, %d markets, %d cycles\n", status.Span(time.Since(d.start)), len(st.Markets), t.Cycles)
	d.paperSummary(w)
	fmt.Fprintf(w, "  fills %d, volume %s shares, notional %s\n", t.Fills, t.Volume.StringFixed(2), t.Notional.StringFixed(2))
	fmt.Fprintf(w, "  pnl %s marked, %s realized\n", status.Signed(t.MarkedPnL), status.Signed(t.RealizedPnL))
	if earned, daily, share := st.RewardTotals(); earned.IsPositive() || share > 0 {
		fmt.Fprintf(w, "  rewards (estimated, not in pnl) %s earned, %.2f a day, %.2f%% mean share of the paying markets' scores\n",
			earned.StringFixed(4), daily, 100*share)
	}
	fmt.Fprintf(w, "  orders sent %d (refused %d), cancels %d (failed %d), risk rejections %d%s\n", t.Placed+t.PlaceFailed, t.PlaceFailed,
		t.Cancelled, t.CancelFailed, t.Rejected, status.CountsSuffix(reasonCounts(&t.RejectedBy)))
	if held := reasonCounts(&t.HeldBack); len(held) > 0 {
		fmt.Fprintf(w, "  quotes held back by limits %s\n", status.CountsList(held))
	}
	inUse, orders := st.AtRisk()
	limit := "no limit"
	if l := d.status.collateralLimit(); l.IsPositive() {
		limit = "limit " + l.String()
	}
	fmt.Fprintf(w, "  collateral in use %s (open BUY orders %s, positions %s; %s)\n", inUse.StringFixed(2), orders.StringFixed(2),
		inUse.Sub(orders).StringFixed(2), limit)
	fmt.Fprintf(w, "  429s %d, retries %d, live orders left %d\n", d.obs.got429.Load(), d.obs.retries.Load(), st.LiveOrders)
}

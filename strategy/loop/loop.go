package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// Config is the loop's configuration. Params can be swapped while the
// loop runs (SetParams); the rest is fixed for its life.
type Config struct {
	Markets    []strategy.Market
	Params     Params
	Estimators strategy.EstimatorParams
	Kill       *risk.KillSwitch // nil: no kill switch (tests only)

	Cycle      time.Duration // time between cycle starts
	MaxBatch   int           // orders per POST /orders (the spec caps it at 15)
	BooksBatch int           // tokens per POST /books
	OrderReads int           // round-robin order reads per cycle at most, besides the ones evidence forces
	// OrderReadShare in (0, 1] is the share of the venue's read budget
	// (ReadBudgeter) that one cycle's round-robin order reads may take; the
	// reads evidence forces take at most half of it (at least one). Default
	// 0.1. A venue without a read budget (paper, replay) is not capped.
	OrderReadShare float64
	// History, when set, is the account's own trade history: every cycle
	// reads what it gained since the last (one or a few requests), and an
	// order a trade names is read back; a trade naming an order the journal
	// gave up on (failed) or does not know brings it back (see history.go).
	History    TradeHistory
	MaxBookAge time.Duration      // a market whose book is older is not quoted and its orders are cancelled
	TapeLimit  int                // trades read per cycle from the data API (0 turns the tape off)
	OrderType  exchange.OrderType // GTC by default
	// Finder, when set, lets Start look for live orders the journal does not
	// know; Unknown says what to do with them (report by default).
	Finder  OrderFinder
	Unknown UnknownPolicy
	// NotFoundGrace is how long an order whose placement answer never came
	// (an intent journaled before a crash, a lost or timed-out POST /orders)
	// may stay unknown to the exchange before it is read again and, when the
	// exchange still does not know it, declared failed: longer than the
	// longest way an order can take (the request timeout and a margin); the
	// market's own delay (strategy.Market.PlacementDelay, the exchange's
	// seconds_delay) is added per order. Until then risk counts it as
	// possibly live. Default 30s.
	NotFoundGrace time.Duration
	// Concurrency is how many of one cycle's independent requests (book
	// batches, order reads, cancels, placement batches) may be in flight at
	// once. At 0 or 1 they run one at a time in a fixed order: what a
	// backtest's single-threaded venue needs. Above 1 the Venue must be
	// safe for concurrent use. Either way the answers are applied in the
	// same fixed order.
	Concurrency int
	// RequestTimeout bounds each request of a cycle (0: only the context
	// passed to Cycle bounds them), so that one slow request costs its
	// market this cycle and not the others theirs. It needs a Clock that
	// can time (the system clock, or a fake with AfterFunc).
	RequestTimeout time.Duration
	// CheckBook, when set, checks every book read before it is used (the
	// daemon sets exchange.ValidateBook). A market with a book it refuses
	// is not quoted, and its orders are cancelled, until its books pass
	// again; the refusal is logged once per market and reason, reported in
	// CycleReport.BooksRefused and shown in MarketStatus.Refused. Nil
	// checks nothing (a backtest's recording was checked when it was read).
	CheckBook func(*exchange.OrderBook) error
	// SkipStatus leaves the per-market status unbuilt: Status returns its
	// zero value and CycleReport.Status is nil (the tally is kept), and
	// the reward estimate it shows is not made. A backtest reads no status,
	// and building it costs as much as a quiet market's pass.
	SkipStatus bool
}

// Params are the strategy parameters that SIGHUP can reload.
type Params struct {
	Model     strategy.Model
	Tolerance strategy.Tolerance
	Checker   *risk.Checker
}

// errNothingToQuote is Cycle's error for a loop built without markets or
// model (as CancelAll builds it).
var errNothingToQuote = errors.New("loop: no markets or no model to quote with")

func (c *Config) setDefaults() error {
	if c.Cycle <= 0 {
		c.Cycle = time.Second
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 15
	}
	if c.BooksBatch <= 0 {
		c.BooksBatch = 100 // 200 markets: 4 POST /books a cycle, half the 80/10 s cap at 1 s cycles
	}
	if c.OrderReads <= 0 {
		c.OrderReads = 40
	}
	switch {
	case c.OrderReadShare == 0:
		c.OrderReadShare = DefaultOrderReadShare
	case !(c.OrderReadShare > 0 && c.OrderReadShare <= 1):
		return fmt.Errorf("loop: order read share %v: want a share in (0, 1]", c.OrderReadShare)
	}
	if c.OrderType == "" {
		c.OrderType = exchange.GTC
	}
	switch c.Unknown {
	case "":
		c.Unknown = UnknownReport
	case UnknownReport, UnknownCancel, UnknownAdopt:
	default:
		return fmt.Errorf("loop: unknown-order policy %q: want report, cancel or adopt", c.Unknown)
	}
	if c.NotFoundGrace <= 0 {
		c.NotFoundGrace = 30 * time.Second
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 1
	}
	if c.RequestTimeout < 0 {
		return fmt.Errorf("loop: request timeout %s is negative", c.RequestTimeout)
	}
	return nil
}

// marketRun is one market's running state.
type marketRun struct {
	m         strategy.Market
	st        *strategy.MarketState
	q         *strategy.Quoter
	books     [2]strategy.TokenBook
	hasBook   [2]bool
	terms     [2][2]decimal.Decimal // per outcome, the tick and minimum size of the book in books
	trades    []strategy.TradePrint
	lastTape  time.Time
	lastFill  [2][2]time.Time
	stopped   string    // why the market is no longer quoted; empty while it is
	lastErr   string    // the last error met on the market
	lastErrAt time.Time // when
	stale     bool
	unread    bool // this cycle's read of its books failed: it is held (not planned) unless stale
	// refused is, per outcome, why its last book was refused (CheckBook);
	// the market is not quoted while either is set. logged holds the
	// reasons already logged, recovered whether a recovery was logged.
	refused   [2]string
	logged    map[string]bool
	recovered bool
	// ticks are, per outcome, the tick size its last book reported (the
	// market's configured tick before the first): a change of either
	// changes the market's tick (takeTick).
	ticks   [2]decimal.Decimal
	fair    float64
	hasFair bool
	snap    strategy.Snapshot
	// snapFair is snap's fair value (snap.FairValue(), from fairMemo),
	// for the estimators' observation of snap.
	snapFair    float64
	snapHasFair bool
	fairMemo    strategy.FairMemo
	open        []*liveOrder
	inflight    []*liveOrder // intents from before this cycle whose answer never came: possibly live, not the planner's to cancel
	res         strategy.PassResult
	need        float64
	limit       risk.Reason // the limit that held its quotes back in its last pass; 0: none
	limLogged   uint32      // the limits logged as holding it back (bit per risk.Reason) since it was last clear
	unheld      int         // passes in a row without a limit holding it back
	rew         rewardRun   // the liquidity-reward estimate
	totals      [numTotals]totalsMemo
	// statusOrders is its orders in the last status (finish).
	statusOrders statusOrders
	statusSums   [2]sumMemo2 // its realized and marked PnL in the last status
}

// refusal returns why the market's data is refused, or "".
func (mr *marketRun) refusal() string {
	if mr.refused[0] != "" {
		return mr.refused[0]
	}
	return mr.refused[1]
}

// liveOrder is a non-final order the loop tracks.
type liveOrder struct {
	JournaledOrder
	market     int
	lastRead   time.Time
	lastCancel time.Time   // when a cancel of it was last sent (zero: never)
	unknown    bool        // sent without an answer, and the exchange did not know it at the last read
	suspect    bool        // the book, or a trade in the history, suggests it traded: read it first
	rem        remMemo     // remaining's last answer
	clear      suspectMemo // markSuspects' last judgement, and what it judged on
	hk         hashKeyMemo
}

// Loop is the strategy loop of DESIGN.md §3. Build it with New, then
// Start (reconcile), Run (cycles until ctx ends) and Shutdown (cancel all).
type Loop struct {
	cfg     Config
	venue   Venue
	inner   Venue // the venue as given, for its optional parts (venue wraps it)
	signer  OrderSigner
	journal Journal
	clock   Clock
	log     zerolog.Logger
	obs     Observer

	markets []*marketRun
	byToken map[string]tokenRef
	orders  map[string]*liveOrder // by hash
	pos     map[string]decimal.Decimal
	marks   markCache
	tape    tapeIndex
	sums    sumMemo   // the plan's sum of the markets' totals
	stamps  stampMemo // the books' last timestamp
	bufs    cycleBufs // lists a cycle builds, reused by the next
	acct    accounting
	tally   Tally

	mu      sync.Mutex // guards pending and status
	pending *Params
	status  Status

	halted bool // the kill switch's cancel-all has been done
	// flowFed counts the cycle's fills (CycleReport.Filled) already given
	// to their market's state (observeFlow).
	flowFed int

	hist   histState   // the trade history's cursor and the trades already taken (history.go)
	settle settleState // the trades not yet final (settle.go)

	view      guardView // shared with the Guard
	lastErr   string    // the last failed cycle's error
	lastErrAt time.Time // when
	// cancelsHeld and placesHeld are when the venue takes cancels and
	// placements again after it throttled them (a 429's Retry-After, or
	// the rate limiter's wait): until then the loop sends none rather than
	// stall its cycle waiting.
	cancelsHeld, placesHeld time.Time

	auth       *authWatch    // sees the venue's authenticated calls (auth.go)
	backoff    cancelBackoff // orders whose cancels keep failing (backoff.go)
	cancelErrs errTally      // cancel failures, one line each (backoff.go)
}

// cycleBufs are lists the cycle builds every time, kept for the next
// cycle to build into: nothing holds them past their cycle.
type cycleBufs struct {
	tokens         []string
	chunks         [][]string
	conds          []string
	open, inflight [][]*liveOrder
	first, rest    []*liveOrder   // readOrders'
	status         [][]*liveOrder // finish's orders by market
}

type tokenRef struct {
	market  int
	outcome strategy.Outcome
}

// New checks cfg and wires the loop's parts. obs may be nil.
func New(cfg Config, v Venue, s OrderSigner, j Journal, c Clock, log zerolog.Logger, obs Observer) (*Loop, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if v == nil || s == nil || j == nil || c == nil {
		return nil, errors.New("loop: New needs a venue, a signer, a journal and a clock")
	}
	if cfg.RequestTimeout > 0 && !canTime(c) {
		return nil, errors.New("loop: a request timeout needs a clock that can time (the system clock, or one with AfterFunc); a backtest's clock cannot")
	}
	if obs == nil {
		obs = nopObserver{}
	}
	l := &Loop{cfg: cfg, venue: v, signer: s, journal: j, clock: c, log: log, obs: obs,
		byToken: map[string]tokenRef{}, orders: map[string]*liveOrder{}, pos: map[string]decimal.Decimal{},
		auth: newAuthWatch(cfg.Kill, c, log), backoff: cancelBackoff{}, cancelErrs: errTally{log: log, msg: "cancels keep failing"}}
	l.inner, l.venue = v, authVenue{Venue: v, w: l.auth}
	for i := range cfg.Markets {
		m := cfg.Markets[i]
		if m.TokenIDs[strategy.Yes] == "" || m.TokenIDs[strategy.No] == "" || m.TokenIDs[strategy.Yes] == m.TokenIDs[strategy.No] {
			return nil, fmt.Errorf("loop: market %s needs two distinct token ids", m.ConditionID)
		}
		if !m.Tick.IsPositive() {
			return nil, fmt.Errorf("loop: market %s has no tick size", m.ConditionID)
		}
		st, err := strategy.NewMarketState(cfg.Estimators)
		if err != nil {
			return nil, err
		}
		for o, tok := range m.TokenIDs {
			if _, dup := l.byToken[tok]; dup {
				return nil, fmt.Errorf("loop: token %s appears in two markets", tok)
			}
			l.byToken[tok] = tokenRef{market: i, outcome: strategy.Outcome(o)}
		}
		mr := &marketRun{m: m, st: st, q: &strategy.Quoter{Model: cfg.Params.Model, Tolerance: cfg.Params.Tolerance, Checker: cfg.Params.Checker, Memo: true},
			ticks: [2]decimal.Decimal{m.Tick, m.Tick}}
		mr.books[strategy.Yes].TokenID, mr.books[strategy.No].TokenID = m.TokenIDs[strategy.Yes], m.TokenIDs[strategy.No]
		l.markets = append(l.markets, mr)
	}
	conds := make([]string, len(l.markets))
	for i, mr := range l.markets {
		conds[i] = mr.m.ConditionID
	}
	l.view.init(conds)
	return l, nil
}

// SetParams swaps the strategy parameters; the next cycle uses them. State
// (orders, positions, estimators) is kept.
func (l *Loop) SetParams(p Params) error {
	if p.Model == nil {
		return errors.New("loop: SetParams without a model")
	}
	if err := p.Tolerance.Validate(); err != nil {
		return err
	}
	l.mu.Lock()
	l.pending = &p
	l.mu.Unlock()
	return nil
}

func (l *Loop) applyPending() {
	l.mu.Lock()
	p := l.pending
	l.pending = nil
	l.mu.Unlock()
	if p == nil {
		return
	}
	l.cfg.Params = *p
	for _, mr := range l.markets {
		mr.q.Model, mr.q.Tolerance, mr.q.Checker = p.Model, p.Tolerance, p.Checker
	}
	l.log.Info().Msg("strategy parameters reloaded")
}

// Run runs cycles every cfg.Cycle until ctx ends; then it returns nil. A
// cycle's error is logged and reported, and the loop goes on. onCycle, when
// not nil, is called after every completed cycle (the daemon pets the
// systemd watchdog there).
func (l *Loop) Run(ctx context.Context, onCycle func(err error)) error {
	for {
		start := l.clock.Now()
		err := l.Cycle(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			l.log.Warn().Err(err).Msg("cycle failed")
		}
		if onCycle != nil {
			onCycle(err)
		}
		wait := l.cfg.Cycle - l.clock.Now().Sub(start)
		if err := l.clock.Sleep(ctx, wait); err != nil {
			return nil
		}
	}
}

// Tally returns the loop's running totals.
func (l *Loop) Tally() Tally {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tally
}

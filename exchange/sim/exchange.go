package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
	"github.com/mmbot/mmbot/exchange/sim/engine"
	"github.com/mmbot/mmbot/signer"
)

// URLs are the base addresses of the three API areas.
type URLs struct {
	Data    string
	Catalog string
	CLOB    string
}

// mstate is the exchange's state of one market.
type mstate struct {
	m      *catalog.Market
	ev     *catalog.Event
	id     string  // engine market id: the condition id, lower case
	ladder float64 // fair value of the background maker's current ladder
	tick   int64   // base units
	// tickSize is the tick as GET /markets and the books show it
	// (ChangeTick changes it; the catalog keeps the initial one).
	tickSize decimal.Decimal
	// bookTick is, per outcome, the tick size its book reports when it is
	// not the market's (zero: the market's): after a ChangeTick that named
	// one token, the other's book still says the old tick.
	bookTick [2]decimal.Decimal
	minSize  int64 // base units
	logit    float64
	requote  time.Time // last background-maker ladder
	closed   bool
	winner   int // -1 until resolved
	closedAt time.Time
}

// fair is the market's fair price of outcome 0.
func (s *mstate) fair() float64 { return 1 / (1 + math.Exp(-s.logit)) }

// Exchange is the simulated exchange.
type Exchange struct {
	cfg      Config
	cat      *catalog.Index
	verifier *signer.Verifier
	limiter  *limiter
	faults   *faultState
	allow    *allowlist
	reqlog   *requestLog

	mu      sync.Mutex
	eng     *engine.Engine
	now     time.Time // the clock in manual mode; the flow's last step otherwise
	markets []*mstate
	byCond  map[string]*mstate
	byToken map[string]*mstate
	accts   *accounts
	orders  map[string]*orderRecord
	data    *ledger
	flow    *flow
	settle  settlements
	delayed []delayedOrder // placements held by their market's delay, in arrival order
	rewards *rewards

	srvMu   sync.Mutex
	srv     *http.Server
	ln      net.Listener
	stop    chan struct{}
	done    sync.WaitGroup
	closed  bool
	started bool
	saveErr error // the last periodic state save's failure
	// closeDone is closed when the first Close has finished; closeErr is
	// what it returned.
	closeDone chan struct{}
	closeErr  error

	restored bool // loaded from Config.StateFile
}

// ErrNotManual is returned by Advance on a real-time exchange.
var ErrNotManual = errors.New("sim: Advance needs the manual clock (Config.Manual)")

// New builds an exchange: catalog, engine, flow accounts. It does not
// listen until Start.
func New(cfg Config) (*Exchange, error) {
	st, err := loadState(cfg.StateFile)
	if err != nil {
		return nil, err
	}
	if st != nil { // the saved exchange, whatever the configuration says
		cfg.Seed, cfg.Start, cfg.Catalog = st.Seed, st.Start, st.Catalog
	}
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	cat := cfg.Catalog
	if cat == nil {
		var err error
		if cat, err = catalog.Generate(cfg.Seed, cfg.Markets, cfg.Start); err != nil {
			return nil, err
		}
	}
	idx, err := catalog.NewIndex(cat)
	if err != nil {
		return nil, err
	}
	ver, err := signer.NewVerifier(cfg.Domain)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	allow, err := newAllowlist(cfg.DataAllowlist)
	if err != nil {
		return nil, err
	}
	e := &Exchange{
		cfg: cfg, cat: idx, verifier: ver,
		limiter: newLimiter(*cfg.Limits, !cfg.NoRateLimits),
		faults:  newFaultState(cfg.Faults, cfg.Seed),
		allow:   allow,
		reqlog:  newRequestLog(cfg.RequestLogSize),
		eng:     engine.New(),
		now:     cfg.Start,
		byCond:  map[string]*mstate{},
		byToken: map[string]*mstate{},
		orders:  map[string]*orderRecord{},
		data:    newLedger(),
		rewards: newRewards(cfg.Start),
		stop:    make(chan struct{}),
	}
	e.accts = newAccounts(cfg.Rand)
	for i := range cat.Markets {
		if err := e.addMarket(&cat.Markets[i]); err != nil {
			return nil, err
		}
	}
	if st != nil {
		if err := e.restore(st); err != nil {
			return nil, fmt.Errorf("sim: state file %s: %w", cfg.StateFile, err)
		}
		e.restored = true
		return e, nil
	}
	e.flow, err = newFlow(e, cfg.Flow, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Exchange) addMarket(m *catalog.Market) error {
	ev, _ := e.cat.EventByID(m.EventID)
	tick, _ := exchange.FixedRound(m.TickSize, exchange.RoundTrunc)
	minSize, _ := exchange.FixedRound(m.MinOrderSize, exchange.RoundTrunc)
	s := &mstate{
		m: m, ev: ev, winner: -1, id: strings.ToLower(m.ConditionID),
		tick: int64(tick), tickSize: m.TickSize, minSize: int64(minSize),
	}
	p := m.InitialPrice.InexactFloat64()
	s.logit = math.Log(p / (1 - p))
	spec := engine.MarketSpec{ID: strings.ToLower(m.ConditionID), Tokens: m.TokenIDs, Tick: s.tick, MinSize: s.minSize}
	if err := e.eng.AddMarket(spec); err != nil {
		return fmt.Errorf("sim: market %d: %w", m.ID, err)
	}
	if m.Closed {
		w := m.Winner
		if w < 0 {
			w = 0
		}
		if _, err := e.eng.Resolve(spec.ID, w, e.now); err != nil {
			return fmt.Errorf("sim: market %d: %w", m.ID, err)
		}
		s.closed, s.winner, s.closedAt = true, w, m.EndDate
	}
	e.markets = append(e.markets, s)
	e.byCond[spec.ID] = s
	e.byToken[m.TokenIDs[0]] = s
	e.byToken[m.TokenIDs[1]] = s
	return nil
}

// clock returns the exchange's time; e.mu is held.
func (e *Exchange) clock() time.Time {
	if e.cfg.Manual {
		return e.now
	}
	return e.cfg.WallClock().UTC()
}

// Now returns the exchange's time.
func (e *Exchange) Now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.clock()
}

// Advance moves the manual clock by d in steps of Config.Step, running the
// flow, GTD expiry and market closing at each step.
func (e *Exchange) Advance(d time.Duration) error {
	if !e.cfg.Manual {
		return ErrNotManual
	}
	if d < 0 {
		return fmt.Errorf("sim: cannot advance by %s", d)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cfg.Flow.Disabled { // nothing moves between events: one step
		e.now = e.now.Add(d)
		e.stepLocked(d)
		return nil
	}
	for d > 0 {
		dt := min(d, e.cfg.Step)
		e.now = e.now.Add(dt)
		e.stepLocked(dt)
		d -= dt
	}
	return nil
}

// Step advances the manual clock by one Config.Step.
func (e *Exchange) Step() error { return e.Advance(e.cfg.Step) }

// stepLocked runs one step of dt ending at e.clock().
func (e *Exchange) stepLocked(dt time.Duration) {
	now := e.clock()
	e.settleDue(now)
	e.release(now)
	for _, o := range e.eng.Expire(now) {
		e.touch(o.Market)
	}
	for _, s := range e.markets {
		if !s.closed && !now.Before(s.m.EndDate) {
			e.resolveLocked(s, e.flow.winner(s), now)
		}
	}
	e.flow.step(dt, now)
	e.rewards.sample(e, now)
}

// Resolve closes and resolves a market now: open orders are cancelled and
// every share of the winning outcome (0 or 1) pays one unit.
func (e *Exchange) Resolve(conditionID string, winner int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.byCond[strings.ToLower(conditionID)]
	if !ok {
		return fmt.Errorf("sim: resolve %s: %w", conditionID, engine.ErrUnknownMarket)
	}
	if s.closed {
		return fmt.Errorf("sim: resolve %s: %w", conditionID, engine.ErrMarketClosed)
	}
	if winner != 0 && winner != 1 {
		return fmt.Errorf("sim: resolve %s: winner %d must be 0 or 1", conditionID, winner)
	}
	e.resolveLocked(s, winner, e.clock())
	return nil
}

func (e *Exchange) resolveLocked(s *mstate, winner int, now time.Time) {
	id := s.id
	e.settleMarket(id) // what is held is paid out: settle it first
	// settle the ledger before the engine removes the balances
	e.data.resolve(e, s, winner, now)
	if _, err := e.eng.Resolve(id, winner, now); err != nil {
		return // the market is known; Resolve only fails for unknown ids
	}
	s.closed, s.winner, s.closedAt = true, winner, now
	e.touch(id)
}

// FairPrice returns the flow's current fair price of a token.
func (e *Exchange) FairPrice(tokenID string) (float64, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.byToken[tokenID]
	if !ok {
		return 0, false
	}
	if s.m.TokenIDs[0] == tokenID {
		return s.fair(), true
	}
	return 1 - s.fair(), true
}

// Markets returns the condition ids of every market, in catalog order.
func (e *Exchange) Markets() []string {
	out := make([]string, len(e.markets))
	for i, s := range e.markets {
		out[i] = s.m.ConditionID
	}
	return out
}

// Catalog returns the catalog served (read-only).
func (e *Exchange) Catalog() *catalog.Catalog { return e.cat.Catalog }

// CheckInvariants verifies the engine's conservation and book invariants.
func (e *Exchange) CheckInvariants() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.eng.CheckInvariants()
}

// Start listens on Config.Addr and serves the three areas until ctx ends or
// Close is called. In real-time mode it also starts the flow ticker.
func (e *Exchange) Start(ctx context.Context) (URLs, error) {
	e.srvMu.Lock()
	defer e.srvMu.Unlock()
	if e.started || e.closed {
		return URLs{}, errors.New("sim: Start called twice or after Close")
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", e.cfg.Addr)
	if err != nil {
		return URLs{}, fmt.Errorf("sim: listen: %w", err)
	}
	e.ln = ln
	e.srv = &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 10 * time.Second}
	e.started = true
	e.done.Add(1)
	go func() {
		defer e.done.Done()
		_ = e.srv.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	if !e.cfg.Manual {
		e.done.Add(1)
		go e.tick()
	}
	if e.cfg.StateFile != "" && e.cfg.StateEvery > 0 {
		e.done.Add(1)
		go e.saveLoop()
	}
	go func() { // not in e.done: Close waits for e.done
		select {
		case <-ctx.Done():
			e.Close()
		case <-e.stop:
		}
	}()
	base := "http://" + ln.Addr().String()
	return URLs{Data: base + "/data", Catalog: base + "/catalog", CLOB: base + "/clob"}, nil
}

// Addr is the listener's address once started.
func (e *Exchange) Addr() net.Addr {
	e.srvMu.Lock()
	defer e.srvMu.Unlock()
	if e.ln == nil {
		return nil
	}
	return e.ln.Addr()
}

// tick advances the flow in real time.
func (e *Exchange) tick() {
	defer e.done.Done()
	t := time.NewTicker(e.cfg.Step)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			e.mu.Lock()
			now := e.clock()
			dt := now.Sub(e.now)
			if dt > 0 {
				e.now = now
				e.stepLocked(min(dt, 10*e.cfg.Step))
			}
			e.mu.Unlock()
		}
	}
}

// Close stops the server (in-flight requests get up to 5 s) and the ticker,
// then saves the state to Config.StateFile when set. It is safe to call
// more than once.
func (e *Exchange) Close() error {
	e.srvMu.Lock()
	if e.closed {
		done := e.closeDone
		e.srvMu.Unlock()
		<-done // a concurrent Close (the context's) may still be saving
		return e.closeErr
	}
	e.closed = true
	e.closeDone = make(chan struct{})
	close(e.stop)
	srv := e.srv
	e.srvMu.Unlock()
	var err error
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err = srv.Shutdown(ctx); err != nil {
			err = srv.Close()
		}
	}
	e.done.Wait()
	if e.cfg.StateFile != "" {
		if serr := e.SaveState(); serr != nil {
			err = errors.Join(err, serr)
		} else {
			e.setSaveErr(nil)
		}
		e.srvMu.Lock()
		err = errors.Join(err, e.saveErr)
		e.srvMu.Unlock()
	}
	e.closeErr = err
	close(e.closeDone)
	return err
}

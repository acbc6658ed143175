package fillmodel

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// Errors of Matcher.Place and Matcher.Cancel.
var (
	ErrUnknownOrder   = errors.New("unknown order")
	ErrDuplicateOrder = errors.New("duplicate order id")
	ErrBadOrder       = errors.New("bad order")
)

// VirtualOrder is an order the simulation places on one token: a GTC limit
// order that exists only in the Matcher.
type VirtualOrder struct {
	ID    string
	Side  exchange.Side
	Price exchange.Fixed
	Size  exchange.Fixed
	// Delay is the market's matching delay (the exchange's seconds_delay):
	// the order reaches the book, and can match, only Delay after it
	// arrives (after the order latency), as on the exchange, where a
	// placement in such a market answers "delayed".
	Delay time.Duration
}

// Fill is one (partial) execution of a virtual order.
type Fill struct {
	OrderID   string
	Side      exchange.Side
	Price     exchange.Fixed // the order's price (maker) or the level taken (taker)
	Size      exchange.Fixed
	Remaining exchange.Fixed // left on the order after this fill; 0 means done
	Time      time.Time
	Taker     bool
	Reason    FillReason
	// First is set on an order's first fill; Wait is then the time from
	// the order becoming active to this fill (the queue wait).
	First bool
	Wait  time.Duration
}

// OrderState is a snapshot of one order in the Matcher.
type OrderState struct {
	VirtualOrder
	Remaining exchange.Fixed
	Ahead     exchange.Fixed // estimated quantity ahead in the queue (0 while pending)
	Active    bool           // resting in the book (false while its placement is in flight)
	ActiveAt  time.Time      // when it becomes or became active
	CancelAt  time.Time      // when a requested cancel takes effect; zero if none
}

// MatcherConfig configures a Matcher.
type MatcherConfig struct {
	Mode    Mode
	Queue   QueueModel
	Latency Latency
	// Seed makes the latency draws and the sampled queue model
	// reproducible. The token id is mixed in, so that each token's Matcher
	// draws its own sequence whatever the order of tokens.
	Seed uint64
}

// Validate checks the configuration.
func (c MatcherConfig) Validate() error {
	if c.Mode > ModeOptimistic {
		return fmt.Errorf("fill mode %d", c.Mode)
	}
	if err := c.Queue.Validate(); err != nil {
		return err
	}
	return c.Latency.Validate()
}

// order is the Matcher's record of one virtual order.
type order struct {
	VirtualOrder
	remaining exchange.Fixed
	ahead     exchange.Fixed // real quantity ahead of us at our price
	level     exchange.Fixed // visible size at our price in the last book
	traded    exchange.Fixed // trade volume at our price (hitting our side) since the last book
	activeAt  time.Time
	cancelAt  time.Time
	active    bool
	filled    bool // has had a fill
}

// Matcher is the fill model of one token: it keeps the virtual orders of the
// simulation, a copy of the last book, and turns book snapshots and trade
// prints into fills of those orders. See Mode for the three models and
// docs/backtesting.md for the rules.
//
// Time only moves forward: a call with a time before the latest one seen is
// treated as happening at the latest time. A Matcher is not safe for
// concurrent use.
type Matcher struct {
	token   string
	cfg     MatcherConfig
	rng     *rand.Rand
	book    recording.FixedBook
	active  []*order // resting orders, in queue-join order
	pending []*order // placements in flight
	byID    map[string]*order
	free    []*order
	fills   []Fill
	nextAt  time.Time // earliest pending activation or cancel; zero if none
	now     time.Time
}

// NewMatcher returns the fill model of token.
func NewMatcher(token string, cfg MatcherConfig) (*Matcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(token))
	return &Matcher{
		token: token,
		cfg:   cfg,
		rng:   rand.New(rand.NewPCG(cfg.Seed, h.Sum64())),
		byID:  map[string]*order{},
	}, nil
}

// Token returns the token id.
func (m *Matcher) Token() string { return m.token }

// Config returns the configuration.
func (m *Matcher) Config() MatcherConfig { return m.cfg }

// Book returns the last book seen. It is owned by the Matcher.
func (m *Matcher) Book() *recording.FixedBook { return &m.book }

// Place sends o at time now: it becomes active (joins the back of its price
// level) at the returned time, now plus a draw of the order latency plus
// o.Delay (the market's matching delay). The
// activation, and any fill, happens in the first OnBook, OnTrade or Advance
// call at or after that time.
func (m *Matcher) Place(o VirtualOrder, now time.Time) (time.Time, error) {
	now = m.clock(now)
	switch {
	case o.ID == "":
		return time.Time{}, fmt.Errorf("%w: empty id", ErrBadOrder)
	case !o.Side.Valid():
		return time.Time{}, fmt.Errorf("%w %s: side %q", ErrBadOrder, o.ID, o.Side)
	case o.Price <= 0 || o.Size <= 0:
		return time.Time{}, fmt.Errorf("%w %s: price %s size %s", ErrBadOrder, o.ID, o.Price, o.Size)
	case o.Delay < 0:
		return time.Time{}, fmt.Errorf("%w %s: delay %s", ErrBadOrder, o.ID, o.Delay)
	}
	if _, dup := m.byID[o.ID]; dup {
		return time.Time{}, fmt.Errorf("%w: %s", ErrDuplicateOrder, o.ID)
	}
	r := m.newOrder()
	r.VirtualOrder = o
	r.remaining = o.Size
	r.activeAt = now.Add(m.cfg.Latency.Order.Sample(m.rng) + o.Delay)
	m.pending = append(m.pending, r)
	m.byID[o.ID] = r
	m.schedule(r.activeAt)
	return r.activeAt, nil
}

// Cancel requests the cancel of order id at time now. It takes effect at the
// returned time (now plus a draw of the cancel latency); fills until then
// still happen. Cancelling an order that is already being cancelled keeps
// the earlier time.
func (m *Matcher) Cancel(id string, now time.Time) (time.Time, error) {
	now = m.clock(now)
	o, ok := m.byID[id]
	if !ok {
		return time.Time{}, fmt.Errorf("%w: %s", ErrUnknownOrder, id)
	}
	at := now.Add(m.cfg.Latency.Cancel.Sample(m.rng))
	if o.cancelAt.IsZero() || at.Before(o.cancelAt) {
		o.cancelAt = at
		m.schedule(at)
	}
	return o.cancelAt, nil
}

// Order returns the state of order id; false once it is filled or cancelled.
func (m *Matcher) Order(id string) (OrderState, bool) {
	o, ok := m.byID[id]
	if !ok {
		return OrderState{}, false
	}
	return o.state(), true
}

// QueueAhead returns the estimated quantity ahead of order id in its queue.
func (m *Matcher) QueueAhead(id string) (exchange.Fixed, bool) {
	o, ok := m.byID[id]
	if !ok {
		return 0, false
	}
	return o.ahead, true
}

// Resting appends the active orders to dst, in queue-join order.
func (m *Matcher) Resting(dst []OrderState) []OrderState {
	for _, o := range m.active {
		dst = append(dst, o.state())
	}
	return dst
}

// Open returns the number of orders that are active or in flight.
func (m *Matcher) Open() int { return len(m.byID) }

// NextTransition returns the earliest time at which an in-flight placement
// becomes active or a cancel takes effect.
func (m *Matcher) NextTransition() (time.Time, bool) { return m.nextAt, !m.nextAt.IsZero() }

func (o *order) state() OrderState {
	return OrderState{VirtualOrder: o.VirtualOrder, Remaining: o.remaining, Ahead: o.ahead,
		Active: o.active, ActiveAt: o.activeAt, CancelAt: o.cancelAt}
}

func (m *Matcher) clock(now time.Time) time.Time {
	if now.Before(m.now) {
		return m.now
	}
	m.now = now
	return now
}

func (m *Matcher) schedule(t time.Time) {
	if m.nextAt.IsZero() || t.Before(m.nextAt) {
		m.nextAt = t
	}
}

func (m *Matcher) newOrder() *order {
	if n := len(m.free); n > 0 {
		o := m.free[n-1]
		m.free = m.free[:n-1]
		*o = order{}
		return o
	}
	return new(order)
}

// release forgets o (filled or cancelled).
func (m *Matcher) release(o *order) {
	delete(m.byID, o.ID)
	m.free = append(m.free, o)
}

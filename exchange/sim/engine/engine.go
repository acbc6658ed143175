package engine

import (
	"container/heap"
	"fmt"
	"sort"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// market is the engine's state of one binary market.
type market struct {
	id       string
	tokens   [2]string
	tick     int64
	minSize  int64
	bids     bookSide
	asks     bookSide
	escrow   int64 // collateral backing the outstanding pairs
	closed   bool
	last     int64 // last execution price in outcome-0 terms, 0 before the first
	resolved int   // winning outcome once resolved, else -1
}

type tokenRef struct {
	m       *market
	outcome int
}

// Engine matches orders of many binary markets.
type Engine struct {
	markets   map[string]*market
	tokens    map[string]tokenRef
	accounts  map[string]*account
	orders    map[string]*Order // live orders
	expiries  expiryHeap        // GTD orders, lazily cleaned
	seq       uint64
	fillSeq   uint64
	deposited int64
}

// New returns an empty engine.
func New() *Engine {
	return &Engine{
		markets:  map[string]*market{},
		tokens:   map[string]tokenRef{},
		accounts: map[string]*account{},
		orders:   map[string]*Order{},
	}
}

// AddMarket registers a market.
func (e *Engine) AddMarket(s MarketSpec) error {
	if s.Tick <= 0 || Unit%s.Tick != 0 || s.Tick%100 != 0 {
		return fmt.Errorf("market %s: tick %d: %w", s.ID, s.Tick, ErrBadPrice)
	}
	if s.MinSize < 0 || s.MinSize%SizeLot != 0 {
		return fmt.Errorf("market %s: min size %d: %w", s.ID, s.MinSize, ErrBadSize)
	}
	if _, dup := e.markets[s.ID]; dup || s.Tokens[0] == s.Tokens[1] {
		return fmt.Errorf("market %s: %w", s.ID, ErrDuplicateID)
	}
	for _, t := range s.Tokens {
		if _, dup := e.tokens[t]; dup {
			return fmt.Errorf("token %s: %w", t, ErrDuplicateID)
		}
	}
	m := &market{id: s.ID, tokens: s.Tokens, tick: s.Tick, minSize: s.MinSize, resolved: -1}
	m.bids.bid = true
	e.markets[s.ID] = m
	e.tokens[s.Tokens[0]] = tokenRef{m, 0}
	e.tokens[s.Tokens[1]] = tokenRef{m, 1}
	return nil
}

// Order returns a live order by id.
func (e *Engine) Order(id string) (*Order, bool) {
	o, ok := e.orders[id]
	return o, ok
}

// OpenOrders calls fn for every live order of an account.
func (e *Engine) OpenOrders(accountID string, fn func(*Order)) {
	for _, o := range e.orders {
		if o.Account == accountID {
			fn(o)
		}
	}
}

// Place validates, reserves for and matches a new order. A rejected order
// changes nothing and returns an error wrapping one of the package's
// sentinels; a rejected FOK or FAK order still returns its Result (status
// Canceled) along with ErrFOKUnfilled or ErrFAKUnfilled.
func (e *Engine) Place(req OrderRequest, now time.Time) (Result, error) {
	ref, ok := e.tokens[req.Token]
	if !ok {
		return Result{}, fmt.Errorf("token %s: %w", req.Token, ErrUnknownToken)
	}
	m := ref.m
	if m.closed {
		return Result{}, fmt.Errorf("market %s: %w", m.id, ErrMarketClosed)
	}
	if err := m.validate(req, now); err != nil {
		return Result{}, err
	}
	if _, dup := e.orders[req.ID]; dup || req.ID == "" {
		return Result{}, fmt.Errorf("order %q: %w", req.ID, ErrDuplicateOrder)
	}
	e.seq++
	o := &Order{
		ID: req.ID, Account: req.Account, Market: m.id, Token: req.Token, Outcome: ref.outcome,
		Side: req.Side, Price: req.Price, Size: req.Size, TIF: req.TIF, Created: now, Updated: now,
		Seq: e.seq, m: m,
	}
	if req.TIF == GTD {
		o.Expires = req.Expires
	}
	o.bid = (ref.outcome == 0) == (req.Side == Buy)
	o.bookPrice = price0(ref.outcome, req.Price)
	if err := e.reserve(o); err != nil {
		return Result{}, err
	}
	if req.TIF == FOK && e.fillable(o, now) < o.Size {
		e.release(o)
		o.Status, o.Reason = Canceled, ReasonKilled
		return Result{Order: o}, ErrFOKUnfilled
	}
	res := Result{Order: o}
	e.match(o, now, &res)
	switch {
	case o.Remaining() == 0:
		o.Status = Matched
	case req.TIF == GTC || req.TIF == GTD:
		e.rest(o)
	default: // FAK rest, cannot be FOK
		e.release(o)
		o.Status, o.Reason = Canceled, ReasonKilled
		if o.Filled == 0 {
			return res, ErrFAKUnfilled
		}
	}
	return res, nil
}

func (m *market) validate(req OrderRequest, now time.Time) error {
	if req.Side != Buy && req.Side != Sell {
		return fmt.Errorf("side %d: %w", req.Side, ErrBadSize)
	}
	if req.Price < m.tick || req.Price > Unit-m.tick || req.Price%m.tick != 0 {
		return fmt.Errorf("%w: price %s is not on the tick grid %s within [%s, %s]", ErrBadPrice,
			exchange.Fixed(req.Price), exchange.Fixed(m.tick), exchange.Fixed(m.tick), exchange.Fixed(Unit-m.tick))
	}
	if req.Size <= 0 || req.Size%SizeLot != 0 || req.Size > MaxSize {
		return fmt.Errorf("%w: size %s must be a positive multiple of 0.01 up to %s", ErrBadSize, exchange.Fixed(req.Size), exchange.Fixed(MaxSize))
	}
	if req.Size < m.minSize {
		return fmt.Errorf("%w: size %s is below the minimum order size %s", ErrBadSize, exchange.Fixed(req.Size), exchange.Fixed(m.minSize))
	}
	switch req.TIF {
	case GTC, FOK, FAK:
	case GTD:
		if !req.Expires.After(now) {
			return fmt.Errorf("%w: %s", ErrExpired, req.Expires.UTC().Format(time.RFC3339))
		}
	default:
		return fmt.Errorf("tif %d: %w", req.TIF, ErrBadTIF)
	}
	return nil
}

func (e *Engine) rest(o *Order) {
	o.Status = Live
	e.orders[o.ID] = o
	if o.bid {
		o.m.bids.add(o)
	} else {
		o.m.asks.add(o)
	}
	if o.TIF == GTD {
		heap.Push(&e.expiries, o)
	}
}

// unrest takes a live order out of the book and the live set and releases
// its reservation; the caller sets the final status.
func (e *Engine) unrest(o *Order) {
	e.release(o)
	if o.bid {
		o.m.bids.remove(o)
	} else {
		o.m.asks.remove(o)
	}
	delete(e.orders, o.ID)
}

func (e *Engine) cancelWith(o *Order, r Reason, now time.Time) {
	e.unrest(o)
	o.Status, o.Reason, o.Updated = Canceled, r, now
}

// Cancel cancels a live order of accountID.
func (e *Engine) Cancel(id, accountID string, now time.Time) (*Order, error) {
	o, ok := e.orders[id]
	if !ok {
		return nil, fmt.Errorf("order %s: %w", id, ErrOrderNotFound)
	}
	if o.Account != accountID {
		return nil, fmt.Errorf("order %s: %w", id, ErrNotOwner)
	}
	e.cancelWith(o, ReasonUser, now)
	return o, nil
}

// CancelAll cancels every live order of an account in one market ("" for
// all markets) and returns them.
func (e *Engine) CancelAll(accountID, marketID string, now time.Time) []*Order {
	var out []*Order
	for _, o := range e.orders {
		if o.Account == accountID && (marketID == "" || o.Market == marketID) {
			out = append(out, o)
		}
	}
	sortBySeq(out)
	for _, o := range out {
		e.cancelWith(o, ReasonUser, now)
	}
	return out
}

// Expire cancels every GTD order whose expiry is at or before now and
// returns them in expiry order.
func (e *Engine) Expire(now time.Time) []*Order {
	var out []*Order
	for len(e.expiries) > 0 {
		o := e.expiries[0]
		if o.Status != Live {
			heap.Pop(&e.expiries)
			continue
		}
		if o.Expires.After(now) {
			break
		}
		heap.Pop(&e.expiries)
		e.cancelWith(o, ReasonExpired, now)
		out = append(out, o)
	}
	return out
}

// Close stops a market: its live orders are cancelled and no new ones are
// accepted. Balances stay until Resolve.
func (e *Engine) Close(marketID string, now time.Time) ([]*Order, error) {
	m, ok := e.markets[marketID]
	if !ok {
		return nil, fmt.Errorf("close %s: %w", marketID, ErrUnknownMarket)
	}
	m.closed = true
	var out []*Order
	for _, side := range []*bookSide{&m.bids, &m.asks} {
		for _, l := range side.levels {
			for o := l.head; o != nil; o = o.next {
				out = append(out, o)
			}
		}
	}
	for _, o := range out {
		e.cancelWith(o, ReasonResolved, now)
	}
	sortBySeq(out)
	return out, nil
}

// Resolve closes a market and redeems it: every share of the winning
// outcome pays one unit of collateral from escrow; the losing shares are
// worthless and removed. It returns the cancelled orders.
func (e *Engine) Resolve(marketID string, winner int, now time.Time) ([]*Order, error) {
	if winner != 0 && winner != 1 {
		return nil, fmt.Errorf("resolve %s: winner %d: %w", marketID, winner, ErrBadAmount)
	}
	canceled, err := e.Close(marketID, now)
	if err != nil {
		return nil, err
	}
	m := e.markets[marketID]
	if m.resolved >= 0 {
		return canceled, nil
	}
	m.resolved = winner
	for _, a := range e.accounts {
		if h := a.shares[m.tokens[winner]]; h != nil {
			a.collateral += h.balance
			m.escrow -= h.balance
		}
		delete(a.shares, m.tokens[0])
		delete(a.shares, m.tokens[1])
	}
	return canceled, nil
}

// Resolved returns the winning outcome of a resolved market, or -1.
func (e *Engine) Resolved(marketID string) int {
	if m, ok := e.markets[marketID]; ok {
		return m.resolved
	}
	return -1
}

// Closed reports whether a market is closed (or unknown).
func (e *Engine) Closed(marketID string) bool {
	m, ok := e.markets[marketID]
	return !ok || m.closed
}

func sortBySeq(os []*Order) {
	sort.Slice(os, func(i, j int) bool { return os[i].Seq < os[j].Seq })
}

// expiryHeap orders GTD orders by expiry, then arrival.
type expiryHeap []*Order

func (h expiryHeap) Len() int { return len(h) }
func (h expiryHeap) Less(i, j int) bool {
	if !h[i].Expires.Equal(h[j].Expires) {
		return h[i].Expires.Before(h[j].Expires)
	}
	return h[i].Seq < h[j].Seq
}
func (h expiryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)   { *h = append(*h, x.(*Order)) }
func (h *expiryHeap) Pop() any {
	old := *h
	n := len(old)
	o := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return o
}

// SetTick changes a market's tick: orders placed from now on must be on the
// new grid; resting orders stay where they are.
func (e *Engine) SetTick(marketID string, tick int64) error {
	m, ok := e.markets[marketID]
	if !ok {
		return ErrUnknownMarket
	}
	if tick <= 0 || Unit%tick != 0 || tick%100 != 0 {
		return fmt.Errorf("market %s: tick %d: %w", marketID, tick, ErrBadPrice)
	}
	m.tick = tick
	return nil
}

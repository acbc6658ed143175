package engine

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

// Snapshot is the engine's whole state in exported fields: balances, market
// escrow and status, live orders and the sequence counters. Restore on a
// fresh engine with the same markets gives back an engine that matches,
// fills and reserves exactly as the one snapshotted would have.
type Snapshot struct {
	Seq       uint64           `json:"seq"`
	FillSeq   uint64           `json:"fill_seq"`
	Deposited int64            `json:"deposited"`
	Markets   []MarketSnapshot `json:"markets"`
	Accounts  []AccountState   `json:"accounts"`
	// Orders are the live orders in arrival order (Seq), so that
	// restoring them one by one rebuilds each level's time priority.
	Orders []OrderSnapshot `json:"orders"`
}

// MarketSnapshot is one market's engine state.
type MarketSnapshot struct {
	ID       string `json:"id"`
	Tick     int64  `json:"tick,omitempty"` // after SetTick; 0 in older files: the AddMarket tick
	Escrow   int64  `json:"escrow"`
	Closed   bool   `json:"closed,omitempty"`
	Last     int64  `json:"last,omitempty"`
	Resolved int    `json:"resolved"`
}

// AccountState is one account's balances (reservations are not stored: they
// follow from the live orders).
type AccountState struct {
	ID         string           `json:"id"`
	Collateral int64            `json:"collateral"`
	Shares     map[string]int64 `json:"shares,omitempty"`
}

// OrderSnapshot is an order's exported fields.
type OrderSnapshot struct {
	ID      string    `json:"id"`
	Account string    `json:"account"`
	Market  string    `json:"market"`
	Token   string    `json:"token"`
	Outcome int       `json:"outcome"`
	Side    Side      `json:"side"`
	Price   int64     `json:"price"`
	Size    int64     `json:"size"`
	Filled  int64     `json:"filled"`
	TIF     TIF       `json:"tif"`
	Expires time.Time `json:"expires,omitzero"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Status  Status    `json:"status"`
	Reason  Reason    `json:"reason,omitempty"`
	Seq     uint64    `json:"seq"`
}

// SnapshotOf returns the exported fields of o.
func SnapshotOf(o *Order) OrderSnapshot {
	return OrderSnapshot{ID: o.ID, Account: o.Account, Market: o.Market, Token: o.Token, Outcome: o.Outcome,
		Side: o.Side, Price: o.Price, Size: o.Size, Filled: o.Filled, TIF: o.TIF, Expires: o.Expires,
		Created: o.Created, Updated: o.Updated, Status: o.Status, Reason: o.Reason, Seq: o.Seq}
}

// Detached returns an order with s's fields that belongs to no book: the
// final state of an order that has left the engine.
func (s OrderSnapshot) Detached() *Order {
	return &Order{ID: s.ID, Account: s.Account, Market: s.Market, Token: s.Token, Outcome: s.Outcome,
		Side: s.Side, Price: s.Price, Size: s.Size, Filled: s.Filled, TIF: s.TIF, Expires: s.Expires,
		Created: s.Created, Updated: s.Updated, Status: s.Status, Reason: s.Reason, Seq: s.Seq}
}

// Snapshot returns the engine's state. The result shares nothing with the
// engine.
func (e *Engine) Snapshot() Snapshot {
	s := Snapshot{Seq: e.seq, FillSeq: e.fillSeq, Deposited: e.deposited}
	for _, m := range e.markets {
		s.Markets = append(s.Markets, MarketSnapshot{ID: m.id, Tick: m.tick, Escrow: m.escrow, Closed: m.closed, Last: m.last, Resolved: m.resolved})
	}
	sort.Slice(s.Markets, func(i, j int) bool { return s.Markets[i].ID < s.Markets[j].ID })
	for id, a := range e.accounts {
		as := AccountState{ID: id, Collateral: a.collateral}
		for tok, h := range a.shares {
			if h.balance != 0 {
				if as.Shares == nil {
					as.Shares = map[string]int64{}
				}
				as.Shares[tok] = h.balance
			}
		}
		s.Accounts = append(s.Accounts, as)
	}
	sort.Slice(s.Accounts, func(i, j int) bool { return s.Accounts[i].ID < s.Accounts[j].ID })
	live := make([]*Order, 0, len(e.orders))
	for _, o := range e.orders {
		live = append(live, o)
	}
	sortBySeq(live)
	for _, o := range live {
		s.Orders = append(s.Orders, SnapshotOf(o))
	}
	return s
}

// ErrNotFresh is returned by Restore on an engine that already holds
// accounts or orders.
var ErrNotFresh = errors.New("restore needs an engine with markets only")

// Restore loads s into an engine that has the snapshot's markets (added with
// AddMarket) and nothing else, then checks the invariants.
func (e *Engine) Restore(s Snapshot) error {
	if len(e.accounts) > 0 || len(e.orders) > 0 {
		return ErrNotFresh
	}
	for _, ms := range s.Markets {
		m, ok := e.markets[ms.ID]
		if !ok {
			return fmt.Errorf("restore: market %s: %w", ms.ID, ErrUnknownMarket)
		}
		m.escrow, m.closed, m.last, m.resolved = ms.Escrow, ms.Closed, ms.Last, ms.Resolved
		if ms.Tick != 0 {
			if err := e.SetTick(ms.ID, ms.Tick); err != nil {
				return fmt.Errorf("restore: %w", err)
			}
		}
	}
	for _, as := range s.Accounts {
		a := e.acct(as.ID)
		a.collateral = as.Collateral
		for tok, v := range as.Shares {
			if _, ok := e.tokens[tok]; !ok {
				return fmt.Errorf("restore: account %s: token %s: %w", as.ID, tok, ErrUnknownToken)
			}
			a.holding(tok).balance = v
		}
	}
	e.seq, e.fillSeq, e.deposited = s.Seq, s.FillSeq, s.Deposited
	orders := append([]OrderSnapshot(nil), s.Orders...)
	sort.Slice(orders, func(i, j int) bool { return orders[i].Seq < orders[j].Seq })
	for _, os := range orders {
		ref, ok := e.tokens[os.Token]
		if !ok || ref.m.id != os.Market || ref.outcome != os.Outcome {
			return fmt.Errorf("restore: order %s: token %s: %w", os.ID, os.Token, ErrUnknownToken)
		}
		if os.Status != Live || os.Filled < 0 || os.Filled >= os.Size {
			return fmt.Errorf("restore: order %s: status %s, filled %d of %d: not a live order", os.ID, os.Status, os.Filled, os.Size)
		}
		if _, dup := e.orders[os.ID]; dup {
			return fmt.Errorf("restore: order %q: %w", os.ID, ErrDuplicateOrder)
		}
		o := os.Detached()
		o.m = ref.m
		o.bid = (ref.outcome == 0) == (o.Side == Buy)
		o.bookPrice = price0(ref.outcome, o.Price)
		a := e.acct(o.Account)
		if o.Side == Buy {
			a.reserved += notional(o.Remaining(), o.Price)
		} else {
			a.holding(o.Token).reserved += o.Remaining()
		}
		e.rest(o)
	}
	if err := e.CheckInvariants(); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

package engine

import (
	"fmt"

	"github.com/mmbot/mmbot/exchange"
)

// holding is one token balance of an account.
type holding struct {
	balance  int64
	reserved int64 // shares locked by open SELL orders
	pending  int64 // shares bought in fills not yet settled (settle.go)
}

// account holds the balances of one owner.
type account struct {
	collateral int64
	reserved   int64 // collateral locked by open BUY orders
	pending    int64 // collateral received in fills not yet settled (settle.go)
	shares     map[string]*holding
}

func (a *account) holding(token string) *holding {
	h := a.shares[token]
	if h == nil {
		h = &holding{}
		a.shares[token] = h
	}
	return h
}

// Balance is a snapshot of one account.
type Balance struct {
	Collateral         int64
	ReservedCollateral int64
	Shares             map[string]int64 // token id -> balance (zero balances left out)
	ReservedShares     map[string]int64
	// PendingCollateral and PendingShares are received in fills not yet
	// settled (Hold): counted in the balances, not usable yet.
	PendingCollateral int64
	PendingShares     map[string]int64
}

// Available is the collateral not reserved by open orders.
func (b Balance) Available() int64 { return b.Collateral - b.ReservedCollateral - b.PendingCollateral }

func (e *Engine) acct(id string) *account {
	a := e.accounts[id]
	if a == nil {
		a = &account{shares: map[string]*holding{}}
		e.accounts[id] = a
	}
	return a
}

// Deposit credits collateral to an account, creating it when new.
func (e *Engine) Deposit(accountID string, amount int64) error {
	if amount <= 0 {
		return fmt.Errorf("deposit %d: %w", amount, ErrBadAmount)
	}
	e.acct(accountID).collateral += amount
	e.deposited += amount
	return nil
}

// Split turns amount of an account's free collateral into amount shares of
// each outcome of a market (a mint outside the book).
func (e *Engine) Split(accountID, marketID string, amount int64) error {
	m, ok := e.markets[marketID]
	if !ok {
		return fmt.Errorf("split %s: %w", marketID, ErrUnknownMarket)
	}
	if m.closed {
		return fmt.Errorf("split %s: %w", marketID, ErrMarketClosed)
	}
	if amount <= 0 || amount%SizeLot != 0 {
		return fmt.Errorf("split %d: %w", amount, ErrBadAmount)
	}
	a := e.acct(accountID)
	if a.collateral-a.reserved-a.pending < amount {
		return fmt.Errorf("split %d: %w", amount, ErrBalance)
	}
	a.collateral -= amount
	m.escrow += amount
	a.holding(m.tokens[0]).balance += amount
	a.holding(m.tokens[1]).balance += amount
	return nil
}

// Merge burns amount free shares of each outcome of a market and returns
// amount collateral to the account.
func (e *Engine) Merge(accountID, marketID string, amount int64) error {
	m, ok := e.markets[marketID]
	if !ok {
		return fmt.Errorf("merge %s: %w", marketID, ErrUnknownMarket)
	}
	if amount <= 0 {
		return fmt.Errorf("merge %d: %w", amount, ErrBadAmount)
	}
	a := e.acct(accountID)
	h0, h1 := a.holding(m.tokens[0]), a.holding(m.tokens[1])
	if h0.balance-h0.reserved-h0.pending < amount || h1.balance-h1.reserved-h1.pending < amount {
		return fmt.Errorf("merge %d: %w", amount, ErrBalance)
	}
	h0.balance -= amount
	h1.balance -= amount
	m.escrow -= amount
	a.collateral += amount
	return nil
}

// Balance returns a snapshot of an account; ok is false for an unknown one.
func (e *Engine) Balance(accountID string) (Balance, bool) {
	a, ok := e.accounts[accountID]
	if !ok {
		return Balance{}, false
	}
	b := Balance{
		Collateral:         a.collateral,
		ReservedCollateral: a.reserved,
		Shares:             map[string]int64{},
		ReservedShares:     map[string]int64{},
		PendingCollateral:  a.pending,
		PendingShares:      map[string]int64{},
	}
	for tok, h := range a.shares {
		if h.balance != 0 {
			b.Shares[tok] = h.balance
		}
		if h.reserved != 0 {
			b.ReservedShares[tok] = h.reserved
		}
		if h.pending != 0 {
			b.PendingShares[tok] = h.pending
		}
	}
	return b, true
}

// ShareBalance is one token balance of an account (0 when none).
func (e *Engine) ShareBalance(accountID, token string) int64 {
	a, ok := e.accounts[accountID]
	if !ok {
		return 0
	}
	if h := a.shares[token]; h != nil {
		return h.balance
	}
	return 0
}

// Holders calls fn for every account with a non-zero balance of token, in
// no particular order.
func (e *Engine) Holders(token string, fn func(accountID string, balance int64)) {
	for id, a := range e.accounts {
		if h := a.shares[token]; h != nil && h.balance != 0 {
			fn(id, h.balance)
		}
	}
}

// reserve locks what a new order needs, or fails with ErrBalance.
func (e *Engine) reserve(o *Order) error {
	a := e.acct(o.Account)
	if o.Side == Buy {
		need := notional(o.Size, o.Price)
		if free := a.collateral - a.reserved - a.pending; free < need {
			return fmt.Errorf("%w: order needs %s collateral, %s available", ErrBalance, exchange.Fixed(need), exchange.Fixed(free))
		}
		a.reserved += need
		return nil
	}
	h := a.holding(o.Token)
	if free := h.balance - h.reserved - h.pending; free < o.Size {
		return fmt.Errorf("%w: order needs %s shares, %s available", ErrBalance, exchange.Fixed(o.Size), exchange.Fixed(free))
	}
	h.reserved += o.Size
	return nil
}

// release unlocks what the unfilled rest of o still holds.
func (e *Engine) release(o *Order) {
	a := e.acct(o.Account)
	rem := o.Remaining()
	if o.Side == Buy {
		a.reserved -= notional(rem, o.Price)
		return
	}
	a.holding(o.Token).reserved -= rem
}

// settle books one party's side of a fill of size shares at its own
// execution price, returning the collateral amount and the escrow change.
func (e *Engine) settle(o *Order, size, price int64) (amount, escrow int64) {
	a := e.acct(o.Account)
	h := a.holding(o.Token)
	amount = notional(size, price)
	if o.Side == Buy {
		a.reserved -= notional(size, o.Price)
		a.collateral -= amount
		h.balance += size
		return amount, amount
	}
	h.reserved -= size
	h.balance -= size
	a.collateral += amount
	return amount, -amount
}

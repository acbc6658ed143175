package engine

import "fmt"

// Totals are the engine-wide sums CheckInvariants balances.
type Totals struct {
	Deposited  int64 // collateral ever deposited
	Collateral int64 // held by accounts
	Escrow     int64 // backing outstanding pairs, all markets
}

// Totals returns the current sums.
func (e *Engine) Totals() Totals {
	t := Totals{Deposited: e.deposited}
	for _, a := range e.accounts {
		t.Collateral += a.collateral
	}
	for _, m := range e.markets {
		t.Escrow += m.escrow
	}
	return t
}

// CheckInvariants verifies conservation and the consistency of books and
// reservations. It is O(accounts × tokens + orders); tests call it.
func (e *Engine) CheckInvariants() error {
	t := e.Totals()
	if t.Collateral+t.Escrow != t.Deposited {
		return fmt.Errorf("collateral %d + escrow %d != deposited %d", t.Collateral, t.Escrow, t.Deposited)
	}
	shares := map[string]int64{}
	for id, a := range e.accounts {
		if a.collateral < 0 || a.reserved < 0 || a.pending < 0 || a.reserved+a.pending > a.collateral {
			return fmt.Errorf("account %s: collateral %d reserved %d", id, a.collateral, a.reserved)
		}
		for tok, h := range a.shares {
			if h.balance < 0 || h.reserved < 0 || h.pending < 0 || h.reserved+h.pending > h.balance {
				return fmt.Errorf("account %s token %s: balance %d reserved %d", id, tok, h.balance, h.reserved)
			}
			shares[tok] += h.balance
		}
	}
	for _, m := range e.markets {
		if m.resolved >= 0 {
			if m.escrow != 0 || shares[m.tokens[0]] != 0 || shares[m.tokens[1]] != 0 {
				return fmt.Errorf("resolved market %s: escrow %d shares %d/%d", m.id, m.escrow, shares[m.tokens[0]], shares[m.tokens[1]])
			}
			continue
		}
		if shares[m.tokens[0]] != m.escrow || shares[m.tokens[1]] != m.escrow {
			return fmt.Errorf("market %s: escrow %d, shares %d and %d", m.id, m.escrow, shares[m.tokens[0]], shares[m.tokens[1]])
		}
		if err := m.checkBook(); err != nil {
			return err
		}
	}
	// reservations equal what the live orders hold
	resC := map[string]int64{}
	resS := map[string]int64{}
	for id, o := range e.orders {
		if o.Status != Live || o.Remaining() <= 0 || o.lvl == nil {
			return fmt.Errorf("order %s in live set: status %v remaining %d", id, o.Status, o.Remaining())
		}
		if o.Side == Buy {
			resC[o.Account] += notional(o.Remaining(), o.Price)
		} else {
			resS[o.Account+"/"+o.Token] += o.Remaining()
		}
	}
	for id, a := range e.accounts {
		if a.reserved != resC[id] {
			return fmt.Errorf("account %s: reserved collateral %d, open buys hold %d", id, a.reserved, resC[id])
		}
		for tok, h := range a.shares {
			if h.reserved != resS[id+"/"+tok] {
				return fmt.Errorf("account %s token %s: reserved %d, open sells hold %d", id, tok, h.reserved, resS[id+"/"+tok])
			}
		}
	}
	return nil
}

func (m *market) checkBook() error {
	for _, s := range []*bookSide{&m.bids, &m.asks} {
		for i, l := range s.levels {
			if i > 0 && !s.better(l.price, s.levels[i-1].price) {
				return fmt.Errorf("market %s: levels out of order at %d", m.id, i)
			}
			var sum int64
			n := 0
			var prevSeq uint64
			for o := l.head; o != nil; o = o.next {
				if o.lvl != l || o.bookPrice != l.price || o.bid != s.bid {
					return fmt.Errorf("market %s: order %s misplaced", m.id, o.ID)
				}
				if o.Seq <= prevSeq {
					return fmt.Errorf("market %s: level %d not in time priority", m.id, l.price)
				}
				prevSeq = o.Seq
				sum += o.Remaining()
				n++
			}
			if sum != l.size || n != l.count || n == 0 {
				return fmt.Errorf("market %s: level %d size %d/%d count %d/%d", m.id, l.price, l.size, sum, l.count, n)
			}
		}
	}
	if b, a := m.bids.best(), m.asks.best(); b != nil && a != nil && b.price >= a.price {
		return fmt.Errorf("market %s: crossed book %d >= %d", m.id, b.price, a.price)
	}
	return nil
}

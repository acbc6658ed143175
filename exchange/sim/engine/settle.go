package engine

import "fmt"

// Settlement. A fill moves balances at once (settle); with deferred
// settlement the simulator then holds what each party received (the
// buyer's shares, the seller's collateral) until the fill settles
// (Release), or takes the whole fill back when its settlement fails
// (Revert). Held amounts count in the balances but cannot back a new
// order, a merge or a split.

// Hold marks what each party of f received as not yet usable.
func (e *Engine) Hold(f Fill) {
	for _, p := range []Party{f.Taker, f.Maker} {
		e.hold(p, f.Size, 1)
	}
}

// Release makes what Hold held usable: the fill has settled.
func (e *Engine) Release(f Fill) {
	for _, p := range []Party{f.Taker, f.Maker} {
		e.hold(p, f.Size, -1)
	}
}

func (e *Engine) hold(p Party, size int64, sign int64) {
	a := e.acct(p.Account)
	if p.Side == Buy {
		a.holding(p.Order.Token).pending += sign * size
		return
	}
	a.pending += sign * p.Amount
}

// Revert takes back a held fill whose settlement failed: each party gets
// back what it gave and loses what it received (still held), and the
// market's escrow moves back. The orders keep their matched size (the
// exchange's record of the match); the released reservations stay
// released. It fails, changing nothing, when what a party received is no
// longer held in full.
func (e *Engine) Revert(f Fill) error {
	m, ok := e.markets[f.Market]
	if !ok {
		return fmt.Errorf("revert fill %d: %w", f.Seq, ErrUnknownMarket)
	}
	parties := []Party{f.Taker, f.Maker}
	for _, p := range parties {
		a := e.acct(p.Account)
		if p.Side == Buy {
			if h := a.holding(p.Order.Token); h.pending < f.Size || h.balance < f.Size {
				return fmt.Errorf("revert fill %d: %s holds %d of %d shares: %w", f.Seq, p.Account, h.pending, f.Size, ErrBalance)
			}
		} else if a.pending < p.Amount || a.collateral < p.Amount {
			return fmt.Errorf("revert fill %d: %s holds %d of %d collateral: %w", f.Seq, p.Account, a.pending, p.Amount, ErrBalance)
		}
	}
	for _, p := range parties {
		a := e.acct(p.Account)
		h := a.holding(p.Order.Token)
		if p.Side == Buy {
			h.pending -= f.Size
			h.balance -= f.Size
			a.collateral += p.Amount
			m.escrow -= p.Amount
			continue
		}
		a.pending -= p.Amount
		a.collateral -= p.Amount
		h.balance += f.Size
		m.escrow += p.Amount
	}
	return nil
}

package state

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// Position is the holding in one outcome token, the fold of its fills.
//
// Accounting (average cost, exact decimals):
//   - Shares is signed: positive long, negative short (shorts only arise
//     from fills marked Short).
//   - Cost is the signed cost basis of those shares: a BUY that opens or adds
//     to a long adds size × price; a SELL that opens or adds to a short adds
//     −size × price (the credit received). AvgPrice is Cost / Shares.
//   - A fill against the position (SELL while long, BUY while short) first
//     closes up to |Shares| shares. It releases the closed fraction of Cost,
//     Cost × closed / |Shares|, rounded (half away from zero, from the
//     exact quotient) to CostPrecision decimal places (the collateral's base unit); closing the whole position
//     releases the whole Cost, so the rounding never leaks: a position taken
//     to zero has realized exactly its proceeds minus its cost (and no
//     release exceeds the basis left). RealizedPnL
//     grows by sign(Shares) × price × closed − released. Any size left over
//     opens the other way at the fill's price.
//   - Fee (collateral) is subtracted from RealizedPnL when the fill is applied,
//     and summed in Fees.
type Position struct {
	TokenID     string          `json:"token_id"`
	ConditionID string          `json:"condition_id"`
	Shares      decimal.Decimal `json:"shares"`
	Cost        decimal.Decimal `json:"cost"`
	RealizedPnL decimal.Decimal `json:"realized_pnl"`
	Fees        decimal.Decimal `json:"fees"`
	Fills       int             `json:"fills"`
	UpdatedAt   time.Time       `json:"updated_at,omitzero"`
}

// CostPrecision is the number of decimal places to which released cost basis
// is rounded: 6, the collateral's base unit.
const CostPrecision = 6

// AvgPrice returns Cost / Shares rounded to 8 decimal places, or zero when
// flat. It is for display and limits; the exact basis is Cost.
func (p *Position) AvgPrice() decimal.Decimal {
	if p.Shares.IsZero() {
		return decimal.Zero
	}
	return p.Cost.DivRound(p.Shares, 8)
}

// Apply folds one fill into the position. It fails with ErrOversell when a
// SELL not marked Short would leave the position below zero, and with
// ErrInvalid when the fill is for another token; on error p is unchanged.
func (p *Position) Apply(f *Fill) error {
	if p.TokenID != "" && f.TokenID != p.TokenID {
		return fmt.Errorf("fill %q: token %s applied to position in %s: %w", f.ID, f.TokenID, p.TokenID, ErrInvalid)
	}
	if f.Reversal {
		p.reverse(f)
		return nil
	}
	d := f.Size // signed quantity: + buy, − sell
	if f.Side == exchange.Sell {
		d = d.Neg()
	}
	after := p.Shares.Add(d)
	if f.Side == exchange.Sell && after.IsNegative() && !f.Short {
		return fmt.Errorf("fill %q: sell %s of token %s holding %s: %w", f.ID, f.Size, f.TokenID, p.Shares, ErrOversell)
	}

	shares, cost, pnl := p.Shares, p.Cost, p.RealizedPnL
	if !shares.IsZero() && shares.Sign() != d.Sign() {
		held := shares.Abs()
		closed := decimal.Min(d.Abs(), held)
		released := cost
		if !closed.Equal(held) {
			released = cost.Mul(closed).DivRound(held, CostPrecision)
			if released.Abs().GreaterThan(cost.Abs()) { // a basis below one unit
				released = cost
			}
		}
		value := f.Price.Mul(closed)
		if shares.IsNegative() {
			value = value.Neg()
		}
		pnl = pnl.Add(value).Sub(released)
		cost = cost.Sub(released)
		if shares.IsPositive() {
			shares = shares.Sub(closed)
			d = d.Add(closed)
		} else {
			shares = shares.Add(closed)
			d = d.Sub(closed)
		}
	}
	if !d.IsZero() { // open or add in the direction of d
		shares = shares.Add(d)
		cost = cost.Add(d.Mul(f.Price))
	}
	if shares.IsZero() {
		cost = decimal.Zero // exact already; normalises the representation
	}

	p.Shares, p.Cost = shares, cost
	p.RealizedPnL = pnl.Sub(f.Fee)
	p.Fees = p.Fees.Add(f.Fee)
	p.Fills++
	p.TokenID = f.TokenID
	if p.ConditionID == "" {
		p.ConditionID = f.ConditionID
	}
	if f.Time.After(p.UpdatedAt) {
		p.UpdatedAt = f.Time
	}
	return nil
}

// reverse takes back a fill of f's side, price and size whose trade failed:
// the shares go back (a BUY's leave, a SELL's return) and so does the
// collateral, through the cost basis, so that realized PnL − cost keeps
// equal to the collateral paid and received: a BUY taken back lowers the
// cost by size × price, a SELL taken back raises it by as much. A position
// back at zero moves what cost is left into realized PnL. The fee is
// refunded. No rule of Apply's can refuse it: the trade never happened.
func (p *Position) reverse(f *Fill) {
	notional := f.Size.Mul(f.Price)
	if f.Side == exchange.Buy {
		p.Shares = p.Shares.Sub(f.Size)
		p.Cost = p.Cost.Sub(notional)
	} else {
		p.Shares = p.Shares.Add(f.Size)
		p.Cost = p.Cost.Add(notional)
	}
	if p.Shares.IsZero() {
		p.RealizedPnL = p.RealizedPnL.Sub(p.Cost)
		p.Cost = decimal.Zero
	}
	p.RealizedPnL = p.RealizedPnL.Add(f.Fee)
	p.Fees = p.Fees.Sub(f.Fee)
	p.Fills++
	p.TokenID = f.TokenID
	if p.ConditionID == "" {
		p.ConditionID = f.ConditionID
	}
	if f.Time.After(p.UpdatedAt) {
		p.UpdatedAt = f.Time
	}
}

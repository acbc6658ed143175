package loop

import (
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// accounting keeps the session's cash and cost basis, exactly, so that the
// loop can report realized and marked PnL and feed the kill switch.
// Positions opened before the session are valued at their first mark.
type accounting struct {
	cash     decimal.Decimal            // collateral received minus paid since the start
	cost     map[string]decimal.Decimal // cost basis of the shares held, per token
	realized decimal.Decimal
	startVal decimal.Decimal // value of the starting positions at their first mark
	started  bool
}

func (a *accounting) init(pos map[string]decimal.Decimal, mark func(token string) (decimal.Decimal, bool)) bool {
	if a.started {
		return true
	}
	a.cost = map[string]decimal.Decimal{}
	val := decimal.Zero
	for tok, sh := range pos {
		m, ok := mark(tok)
		if !ok {
			return false
		}
		val = val.Add(sh.Mul(m))
		a.cost[tok] = sh.Mul(m)
	}
	a.startVal, a.started = val, true
	return true
}

// fill books one fill of size shares at price; held is the position before it.
func (a *accounting) fill(token string, side exchange.Side, price, size, held decimal.Decimal) {
	if a.cost == nil {
		a.cost = map[string]decimal.Decimal{}
	}
	notional := price.Mul(size)
	if side == exchange.Buy {
		a.cash = a.cash.Sub(notional)
		a.cost[token] = a.cost[token].Add(notional)
		return
	}
	a.cash = a.cash.Add(notional)
	if held.IsPositive() {
		sold := decimal.Min(size, held)
		basis := a.cost[token].Mul(sold).Div(held)
		a.cost[token] = a.cost[token].Sub(basis)
		a.realized = a.realized.Add(price.Mul(sold)).Sub(basis)
	}
}

// marked returns the PnL since the start: cash plus the positions' value now
// minus their value at the start.
func (a *accounting) marked(pos map[string]decimal.Decimal, mark func(token string) (decimal.Decimal, bool)) decimal.Decimal {
	val := decimal.Zero
	for tok, sh := range pos {
		if sh.IsZero() {
			continue
		}
		m, ok := mark(tok)
		if !ok {
			m = a.avgCost(tok, sh)
		}
		val = val.Add(sh.Mul(m))
	}
	return a.cash.Add(val).Sub(a.startVal)
}

func (a *accounting) avgCost(tok string, sh decimal.Decimal) decimal.Decimal {
	if sh.IsZero() {
		return decimal.Zero
	}
	return a.cost[tok].Div(sh)
}

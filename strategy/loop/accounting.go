package loop

import (
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// accounting keeps the session's cash and cost basis per token, exactly, so
// that the loop can report realized and marked PnL, in total and per
// market, and feed the kill switch. Positions opened before the session are
// valued at their first mark.
type accounting struct {
	cash     map[string]decimal.Decimal // collateral received minus paid since the start, per token
	cost     map[string]decimal.Decimal // cost basis of the shares held, per token
	realized map[string]decimal.Decimal // realized PnL per token
	startVal map[string]decimal.Decimal // value of the starting position at its first mark, per token
	started  bool
	// ver counts the changes of the books above and of the positions (the
	// loop calls touch for a change of its own), for markCache.
	ver uint64
}

// touch notes a change the marked PnL depends on.
func (a *accounting) touch() { a.ver++ }

func (a *accounting) ensure() {
	if a.cost == nil {
		a.cash, a.cost, a.realized, a.startVal = map[string]decimal.Decimal{}, map[string]decimal.Decimal{},
			map[string]decimal.Decimal{}, map[string]decimal.Decimal{}
	}
}

func (a *accounting) init(pos map[string]decimal.Decimal, mark func(token string) (decimal.Decimal, bool)) bool {
	if a.started {
		return true
	}
	a.ensure()
	start := map[string]decimal.Decimal{}
	for tok, sh := range pos {
		m, ok := mark(tok)
		if !ok {
			return false
		}
		start[tok] = sh.Mul(m)
	}
	for tok, v := range start {
		a.startVal[tok] = v
		a.cost[tok] = v
	}
	a.started = true
	a.ver++
	return true
}

// fill books one fill of size shares at price; held is the position before it.
func (a *accounting) fill(token string, side exchange.Side, price, size, held decimal.Decimal) {
	a.ensure()
	a.ver++
	notional := price.Mul(size)
	if side == exchange.Buy {
		a.cash[token] = a.cash[token].Sub(notional)
		a.cost[token] = a.cost[token].Add(notional)
		return
	}
	a.cash[token] = a.cash[token].Add(notional)
	if held.IsPositive() {
		sold := decimal.Min(size, held)
		basis := a.cost[token].Mul(sold).Div(held)
		a.cost[token] = a.cost[token].Sub(basis)
		a.realized[token] = a.realized[token].Add(price.Mul(sold)).Sub(basis)
	}
}

// totalRealized returns the realized PnL summed over every token.
func (a *accounting) totalRealized() decimal.Decimal {
	total := decimal.Zero
	for _, r := range a.realized {
		total = total.Add(r)
	}
	return total
}

// markedToken returns one token's share of marked: its cash plus sh shares
// at the mark (at their average cost when there is no mark) minus its value
// at the start.
func (a *accounting) markedToken(tok string, sh decimal.Decimal, mark func(token string) (decimal.Decimal, bool)) decimal.Decimal {
	val := decimal.Zero
	if !sh.IsZero() {
		m, ok := mark(tok)
		if !ok {
			m = a.avgCost(tok, sh)
		}
		val = sh.Mul(m)
	}
	return a.cash[tok].Add(val).Sub(a.startVal[tok])
}

// tokens is every token that has a position, cash or a starting value.
func (a *accounting) tokens(pos map[string]decimal.Decimal) map[string]struct{} {
	out := make(map[string]struct{}, len(pos)+len(a.cash))
	for tok := range pos {
		out[tok] = struct{}{}
	}
	for tok := range a.cash {
		out[tok] = struct{}{}
	}
	for tok := range a.startVal {
		out[tok] = struct{}{}
	}
	return out
}

func (a *accounting) avgCost(tok string, sh decimal.Decimal) decimal.Decimal {
	if sh.IsZero() {
		return decimal.Zero
	}
	return a.cost[tok].Div(sh)
}

// reverse takes back a fill of size shares at price whose trade failed; pos
// is the position after. Collateral comes back through the cost basis (a
// BUY taken back lowers it, a SELL raises it), so cash and PnL are exact; a
// position back at zero moves what cost is left into realized PnL.
func (a *accounting) reverse(token string, side exchange.Side, price, size, pos decimal.Decimal) {
	a.ensure()
	a.ver++
	notional := price.Mul(size)
	if side == exchange.Buy {
		a.cash[token] = a.cash[token].Add(notional)
		a.cost[token] = a.cost[token].Sub(notional)
	} else {
		a.cash[token] = a.cash[token].Sub(notional)
		a.cost[token] = a.cost[token].Add(notional)
	}
	if pos.IsZero() {
		a.realized[token] = a.realized[token].Sub(a.cost[token])
		a.cost[token] = decimal.Zero
	}
}

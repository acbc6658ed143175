package loop

import (
	"math"
	"slices"

	"github.com/shopspring/decimal"
)

// markCache keeps each token's share of the marked PnL and the totals, so
// that a cycle values again only the tokens whose mark moved: a token's
// share depends on the accounting and its position (both counted by
// accounting.ver) and on its mark (markOf, compared bit for bit). The sums
// are exact, so the order of the tokens changes nothing.
type markCache struct {
	ok       bool
	ver      uint64 // accounting.ver the tokens and the realized total are of
	toks     []string
	index    map[string]int // toks' positions
	marks    []tokenMark
	marked   decimal.Decimal
	realized decimal.Decimal
}

// tokenMark is one token's share of the marked PnL at a mark.
type tokenMark struct {
	ok   bool   // val is set
	bits uint64 // the mark's bits (math.Float64bits)
	has  bool   // the token had a mark
	val  decimal.Decimal
}

// pnl returns the marked PnL since the start (cash plus the positions'
// value now minus their value at the start, summed over every token: the
// sum of accounting.markedToken) and the realized PnL
// (accounting.totalRealized), for l's positions and marks.
func (c *markCache) pnl(l *Loop, mark func(string) (decimal.Decimal, bool)) (marked, realized decimal.Decimal) {
	a := &l.acct
	if !c.ok || c.ver != a.ver {
		c.toks = c.toks[:0]
		for tok := range a.tokens(l.pos) {
			c.toks = append(c.toks, tok)
		}
		slices.Sort(c.toks)
		clear(c.index)
		if c.index == nil {
			c.index = map[string]int{}
		}
		for i, tok := range c.toks {
			c.index[tok] = i
		}
		c.marks = append(c.marks[:0], make([]tokenMark, len(c.toks))...)
		c.realized = a.totalRealized()
	}
	changed := !c.ok || c.ver != a.ver
	c.ok, c.ver = true, a.ver
	for i, tok := range c.toks {
		f, has := l.markOf(tok)
		tm := &c.marks[i]
		if tm.ok && tm.has == has && tm.bits == math.Float64bits(f) {
			continue
		}
		*tm = tokenMark{ok: true, bits: math.Float64bits(f), has: has, val: a.markedToken(tok, l.pos[tok], mark)}
		changed = true
	}
	if changed {
		c.marked = decimal.Zero
		for i := range c.marks {
			c.marked = c.marked.Add(c.marks[i].val)
		}
	}
	return c.marked, c.realized
}

// token returns accounting.markedToken for tok at l's position and mark;
// call pnl first in the cycle, which brings the kept values up to date.
func (c *markCache) token(l *Loop, tok string, mark func(string) (decimal.Decimal, bool)) decimal.Decimal {
	if c.ok && c.ver == l.acct.ver {
		i, ok := c.index[tok]
		if !ok {
			return decimal.Zero // no position, cash nor starting value: nothing to mark
		}
		if c.marks[i].ok {
			return c.marks[i].val
		}
	}
	return l.acct.markedToken(tok, l.pos[tok], mark)
}

package accounting

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// TokenAcc accumulates one token's part of a run. Get it from
// Accumulator.Token.
type TokenAcc struct {
	acc    *Accumulator
	id     string
	bid    exchange.Fixed // best bid, 0 if none
	ask    exchange.Fixed // best ask, 0 if none
	mid2   exchange.Fixed // bid + ask: twice the mid, exact
	hasMid bool
	// An explicit mark (OnMark) for runs without books; it values the
	// position while it is more recent than the last two-sided book.
	markPx  decimal.Decimal
	markSrc string
	hasMark bool
	ourBid  exchange.Fixed
	ourAsk  exchange.Fixed

	pos       decimal.Decimal // shares, signed
	basis     decimal.Decimal // cost of the open position (signed like pos)
	cash      decimal.Decimal
	sum       Summary
	waitSum   time.Duration
	maxAbsPos decimal.Decimal
	absPosSum float64
	absPosN   int
	// absPosSum and absPosN before the latest sample, to take it again at
	// the end of the run (Accumulator.resampleLast).
	prevAbsPosSum float64
	prevAbsPosN   int
	midless       int
	resolved      bool
	payout        decimal.Decimal
	payout2       exchange.Fixed // twice the payout
	pending       [len(markoutHorizons)]markoutQueue
}

// ID returns the token id.
func (t *TokenAcc) ID() string { return t.id }

// OnBook records the market's book at time at (only its best levels are
// used) and resolves the markouts that came due.
func (t *TokenAcc) OnBook(at time.Time, b *recording.FixedBook) {
	at = t.acc.advance(at)
	if t.resolved {
		return
	}
	var bid, ask exchange.Fixed
	if len(b.Bids) > 0 {
		bid = b.Bids[0].Price
	}
	if len(b.Asks) > 0 {
		ask = b.Asks[0].Price
	}
	if bid == t.bid && ask == t.ask {
		t.resolveMarkouts(at)
		return
	}
	// Markouts due strictly before this book saw the previous mid.
	t.resolveBefore(at)
	t.bid, t.ask = bid, ask
	if bid > 0 && ask > 0 {
		t.mid2, t.hasMid = bid+ask, true
		t.hasMark = false
	}
	t.resolveMarkouts(at)
}

// resolveBefore measures the markouts due strictly before at against the
// current mark.
func (t *TokenAcc) resolveBefore(at time.Time) {
	t.resolveDue(at, true)
}

// resolveMarkouts measures the markouts due at or before at.
func (t *TokenAcc) resolveMarkouts(at time.Time) {
	t.resolveDue(at, false)
}

func (t *TokenAcc) resolveDue(at time.Time, strict bool) {
	if !t.hasMid && !t.resolved {
		return
	}
	for i := range t.pending {
		if t.pending[i].due(at) {
			t.pending[i].resolve(at, t.mark2(), strict)
		}
	}
}

// OnQuote records our current quotes (0 for no quote on a side).
func (t *TokenAcc) OnQuote(at time.Time, bid, ask exchange.Fixed) {
	t.acc.advance(at)
	t.ourBid, t.ourAsk = bid, ask
}

// OnPlace records an order sent at time at.
func (t *TokenAcc) OnPlace(at time.Time, o fillmodel.VirtualOrder) {
	at = t.acc.advance(at)
	t.acc.orders[0].add(at)
	t.acc.orders[1].add(at)
	t.sum.OrdersSent++
	t.sum.PlacedSize = t.sum.PlacedSize.Add(o.Size.Decimal())
}

// OnCancel records a cancel sent at time at.
func (t *TokenAcc) OnCancel(at time.Time) {
	at = t.acc.advance(at)
	t.acc.cancels[0].add(at)
	t.acc.cancels[1].add(at)
	t.sum.CancelsSent++
}

// OnFill books a fill: cash, position, fees (priced by Run.Fees), realized
// PnL (average cost), the spread captured against the current mid, and the
// markouts to measure.
func (t *TokenAcc) OnFill(f fillmodel.Fill) {
	t.OnFillFee(f, t.acc.cfg.Run.Fees.Fee(f.Price, f.Size, f.Taker))
}

// OnFillFee books a fill as OnFill does, with the fee it was charged (a
// live fill, as the order journal recorded it) instead of one priced by
// Run.Fees. A negative fee is a rebate.
func (t *TokenAcc) OnFillFee(f fillmodel.Fill, fee decimal.Decimal) {
	t.acc.advance(f.Time)
	price, size := f.Price.Decimal(), f.Size.Decimal()
	notional := price.Mul(size)
	signed := size
	if f.Side == exchange.Sell {
		signed = size.Neg()
	}
	// Average-cost realized PnL: a fill against the open position realizes
	// (price − average cost) on the closed part.
	if !t.pos.IsZero() && t.pos.Sign() != signed.Sign() {
		closed := decimal.Min(size, t.pos.Abs())
		released := releasedBasis(t.basis, t.pos.Abs(), closed)
		value := price.Mul(closed) // what the closed shares fetched (long) or cost to buy back (short)
		if t.pos.IsNegative() {
			value = value.Neg()
		}
		t.sum.Realized = t.sum.Realized.Add(value.Sub(released))
		t.basis = t.basis.Sub(released)
		if rest := size.Sub(closed); rest.IsPositive() {
			// The fill flips the position: the rest opens a new one.
			t.basis = price.Mul(rest)
			if f.Side == exchange.Sell {
				t.basis = t.basis.Neg()
			}
		}
	} else {
		t.basis = t.basis.Add(price.Mul(signed))
	}
	t.pos = t.pos.Add(signed)
	if t.pos.IsZero() {
		t.basis = decimal.Zero
	}
	t.cash = t.cash.Sub(notional.Mul(sideSign(f.Side)))
	t.cash = t.cash.Sub(fee)
	t.sum.Realized = t.sum.Realized.Sub(fee)
	t.sum.Fees = t.sum.Fees.Add(fee)
	t.sum.Volume = t.sum.Volume.Add(size)
	t.sum.Notional = t.sum.Notional.Add(notional)
	t.sum.FilledSize = t.sum.FilledSize.Add(size)
	t.sum.Fills++
	if f.Taker {
		t.sum.TakerFills++
	} else if f.First {
		t.waitSum += f.Wait
		t.sum.WaitSamples++
	}
	if ap := t.pos.Abs(); ap.GreaterThan(t.maxAbsPos) {
		t.maxAbsPos = ap
	}
	rec := FillRecord{Time: f.Time, TokenID: t.id, OrderID: f.OrderID, Side: f.Side, Price: f.Price,
		Size: f.Size, Fee: fee, Taker: f.Taker, Reason: f.Reason}
	if t.hasMid && !t.resolved {
		mid := t.bookMark()
		rec.Mid = mid
		// Edge to the mid: positive when we bought below or sold above it.
		edge := mid.Sub(price).Mul(sideSign(f.Side))
		t.sum.SpreadPnL = t.sum.SpreadPnL.Add(edge.Mul(size))
		for i := range t.pending {
			t.pending[i].add(f.Time, f.Price, t.mid2, f.Size, f.Side)
		}
	} else {
		t.midless++
	}
	t.acc.fills = append(t.acc.fills, rec)
}

// OnMark values the token at price from at on, without a book: for runs
// that have no books, such as live fills read back from the order journal.
// source names where the price comes from ("last fill", "mid"); reports
// show it. The more recent of OnMark and a two-sided OnBook sets the mark,
// and a resolved token stays at its payout. Spread PnL and markouts are
// measured against book mids only, never against an OnMark price.
func (t *TokenAcc) OnMark(at time.Time, price decimal.Decimal, source string) {
	t.acc.advance(at)
	t.markPx, t.markSrc, t.hasMark = price, source, true
}

// OnOpen carries a position into the run at at, its start: shares (signed,
// negative for a short) whose cost basis is basis (signed like shares, as
// state.Position.Cost), valued at mark, which source names (see OnMark).
// Cash starts at −shares × mark, so the run's PnL counts only what happens
// from at on; realized PnL is measured against the carried basis, and the
// unrealized PnL is the change of the position's unrealized value over the
// run. Call it before the token's other inputs.
func (t *TokenAcc) OnOpen(at time.Time, shares, basis, mark decimal.Decimal, source string) {
	t.OnMark(at, mark, source)
	t.pos, t.basis = shares, basis
	t.cash = shares.Mul(mark).Neg()
	if ap := shares.Abs(); ap.GreaterThan(t.maxAbsPos) {
		t.maxAbsPos = ap
	}
}

// OnResolve settles the token at time at: the position is redeemed at
// payout per share (1 for the winner, 0 for the loser), which realizes its
// PnL; from then on the token's mark is the payout and books are ignored.
func (t *TokenAcc) OnResolve(at time.Time, payout decimal.Decimal) {
	if t.resolved {
		return
	}
	at = t.acc.advance(at)
	t.resolveBefore(at)
	value := t.pos.Mul(payout)
	t.sum.Realized = t.sum.Realized.Add(value.Sub(t.basis))
	t.cash = t.cash.Add(value)
	t.pos, t.basis = decimal.Zero, decimal.Zero
	t.resolved, t.payout = true, payout
	if p, err := exchange.FixedFromDecimal(payout); err == nil {
		t.payout2 = 2 * p
	}
}

// releasedBasis is the part of basis (the signed cost of held shares) that
// closing closed of them releases: basis × closed / held, rounded half away
// from zero to the collateral's base unit (exchange.FixedDecimals places);
// closing all of them releases all of basis. This is the order journal's
// rule (state.Position), so the backtest and the journal book the same
// realized PnL, and a round trip realizes exactly its proceeds minus its
// cost whatever the average price.
func releasedBasis(basis, held, closed decimal.Decimal) decimal.Decimal {
	if closed.Equal(held) {
		return basis
	}
	r := basis.Mul(closed).DivRound(held, exchange.FixedDecimals)
	if r.Abs().GreaterThan(basis.Abs()) { // a basis below one base unit
		return basis
	}
	return r
}

func sideSign(s exchange.Side) decimal.Decimal {
	if s == exchange.Sell {
		return decimal.NewFromInt(-1)
	}
	return decimal.NewFromInt(1)
}

// mark is the price the position is valued at: the payout once resolved,
// else an OnMark price more recent than the last two-sided book, else the
// book mark.
func (t *TokenAcc) mark() decimal.Decimal {
	if t.hasMark && !t.resolved {
		return t.markPx
	}
	return t.bookMark()
}

// bookMark is the payout once resolved, else the mid (zero before any
// two-sided book).
func (t *TokenAcc) bookMark() decimal.Decimal {
	if t.resolved {
		return t.payout
	}
	if !t.hasMid {
		return decimal.Zero
	}
	return decimal.New(int64(t.mid2)*5, -exchange.FixedDecimals-1)
}

// markSource names what mark returns: "payout", the OnMark source, "mid",
// or "" before any mark.
func (t *TokenAcc) markSource() string {
	switch {
	case t.resolved:
		return "payout"
	case t.hasMark:
		return t.markSrc
	case t.hasMid:
		return "mid"
	}
	return ""
}

// mark2 is twice the mark in Fixed units.
func (t *TokenAcc) mark2() exchange.Fixed {
	if t.resolved {
		return t.payout2
	}
	return t.mid2
}

// pnl is cash + position × mark.
func (t *TokenAcc) pnl() decimal.Decimal {
	if t.pos.IsZero() {
		return t.cash
	}
	return t.cash.Add(t.pos.Mul(t.mark()))
}

func (t *TokenAcc) summary() TokenSummary {
	s := t.sum
	s.Cash = t.cash
	s.PnL = t.pnl()
	if s.WaitSamples > 0 {
		s.AvgWait = t.waitSum / time.Duration(s.WaitSamples)
	}
	finishSummary(&s)
	ts := TokenSummary{TokenID: t.id, Summary: s, Position: t.pos, MaxAbsPos: t.maxAbsPos,
		LastMid: t.mark(), MarkSource: t.markSource(), Resolved: t.resolved, MidlessFills: t.midless}
	if t.absPosN > 0 {
		ts.MeanAbsPos = t.absPosSum / float64(t.absPosN)
	}
	return ts
}

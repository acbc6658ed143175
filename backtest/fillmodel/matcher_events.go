package fillmodel

import (
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// MatchTrade is a trade print in Fixed units, as the Matcher consumes it.
type MatchTrade struct {
	Price, Size exchange.Fixed
	TakerSide   exchange.Side // "" when unknown
}

// Mirror is the trade as the market's other token sees it. The two tokens
// of a binary market share one book (a BUY of YES at p is a SELL of NO at
// 1 − p, which the exchange matches by minting or merging), so a print on
// one token went through the other token's orders at the complementary
// price: a taker buying YES at p took, on the NO side, what a taker
// selling NO at 1 − p takes. The replay and the paper venue show every
// trade to both tokens' Matchers, the other one mirrored.
func (t MatchTrade) Mirror() MatchTrade {
	m := MatchTrade{Price: exchange.FixedScale - t.Price, Size: t.Size}
	if t.TakerSide.Valid() {
		m.TakerSide = t.TakerSide.Opposite()
	}
	return m
}

// Advance applies the activations and cancels due at or before now and
// returns the fills they cause (an order that crosses the book when it
// becomes active takes liquidity). The slice is valid until the next call.
func (m *Matcher) Advance(now time.Time) []Fill {
	m.fills = m.fills[:0]
	m.advance(m.clock(now))
	return m.fills
}

// OnBook applies a book snapshot at time now: first the transitions due,
// then, for each resting order, a crossing check and the queue update. The
// Matcher keeps a copy of b. The returned slice is valid until the next call.
func (m *Matcher) OnBook(b *recording.FixedBook, now time.Time) []Fill {
	m.fills = m.fills[:0]
	now = m.clock(now)
	m.advance(now)
	m.book.CopyFrom(b)
	done := false
	for _, o := range m.active {
		if m.crossed(o) {
			m.crossFill(o, now)
			done = done || o.remaining == 0
			continue
		}
		o.crossUsed = 0
		m.updateQueue(o, m.book.SizeAt(o.Side, o.Price))
	}
	if done {
		m.sweep()
	}
	return m.fills
}

// OnTrade applies one trade print at time now. The returned slice is valid
// until the next call.
func (m *Matcher) OnTrade(t MatchTrade, now time.Time) []Fill {
	m.fills = m.fills[:0]
	now = m.clock(now)
	m.advance(now)
	if t.Size <= 0 || t.Price <= 0 {
		return m.fills
	}
	done := false
	for _, o := range m.active {
		m.tradeOne(o, t, now)
		done = done || o.remaining == 0
	}
	if done {
		m.sweep()
	}
	return m.fills
}

// better reports whether price p is strictly better than the order's price
// from the order's point of view (lower for a bid, higher for an ask): a
// trade there means the market went through the order.
func better(o *order, p exchange.Fixed) bool {
	if o.Side == exchange.Buy {
		return p < o.Price
	}
	return p > o.Price
}

func (m *Matcher) tradeOne(o *order, t MatchTrade, now time.Time) {
	// Outside the optimistic mode a trade fills us by at most its size:
	// the taker on the other side would have met our order first, and no
	// more than that taker brought.
	most := o.remaining
	if m.cfg.Mode != ModeOptimistic {
		most = min(most, t.Size)
	}
	switch {
	case better(o, t.Price):
		m.fill(o, most, o.Price, now, FillTradeThrough, false)
		return
	case t.Price != o.Price:
		return
	case t.TakerSide == o.Side:
		// A taker on our side printed at our price: the opposite side was
		// at our price, which our resting order would have met first.
		if m.cfg.Mode != ModeConservative {
			m.fill(o, most, o.Price, now, FillCross, false)
		}
		return
	}
	// A trade at our price against our side (or of unknown side).
	switch m.cfg.Mode {
	case ModeOptimistic:
		m.fill(o, o.remaining, o.Price, now, FillTouch, false)
	case ModeConservative:
		o.ahead = max(0, o.ahead-t.Size)
		o.traded += t.Size
	default:
		avail := t.Size - m.usedAt(o)
		if avail > o.ahead {
			m.fill(o, min(o.remaining, avail-o.ahead), o.Price, now, FillQueue, false)
		}
		o.ahead = max(0, o.ahead-avail)
		o.traded += t.Size
	}
}

// usedAt is the part of the current trade already given to our orders that
// joined the same price level earlier (they are ahead of o).
func (m *Matcher) usedAt(o *order) exchange.Fixed {
	var used exchange.Fixed
	for i := range m.fills {
		f := &m.fills[i]
		if f.Side == o.Side && f.Price == o.Price && f.Reason == FillQueue {
			used += f.Size
		}
	}
	return used
}

// crossFill fills an order the book crosses. In the optimistic mode the
// whole order fills. Otherwise it fills by the volume the book shows at or
// through its price (strictly through in the conservative mode) that an
// earlier book of the same cross has not already given it: an order that
// rested there would have met that volume and no more. The queue ahead of
// it is gone (the level was taken); the rest keeps resting.
func (m *Matcher) crossFill(o *order, now time.Time) {
	o.ahead = 0
	if m.cfg.Mode == ModeOptimistic {
		m.fill(o, o.remaining, o.Price, now, FillCross, false)
		return
	}
	strict := m.cfg.Mode == ModeConservative
	var vol exchange.Fixed
	if o.Side == exchange.Buy {
		for _, l := range m.book.Asks {
			if l.Price > o.Price || strict && l.Price == o.Price {
				break
			}
			vol += l.Size
		}
	} else {
		for _, l := range m.book.Bids {
			if l.Price < o.Price || strict && l.Price == o.Price {
				break
			}
			vol += l.Size
		}
	}
	if avail := vol - o.crossUsed; avail > 0 {
		before := o.remaining
		m.fill(o, avail, o.Price, now, FillCross, false)
		o.crossUsed += before - o.remaining
	}
}

// crossed reports whether the opposite best of the current book is at or
// through the order's price (strictly through in conservative mode).
func (m *Matcher) crossed(o *order) bool {
	strict := m.cfg.Mode == ModeConservative
	if o.Side == exchange.Buy {
		if len(m.book.Asks) == 0 {
			return false
		}
		a := m.book.Asks[0].Price
		return a < o.Price || !strict && a == o.Price
	}
	if len(m.book.Bids) == 0 {
		return false
	}
	b := m.book.Bids[0].Price
	return b > o.Price || !strict && b == o.Price
}

// updateQueue reconciles o's queue estimate with the new visible size cur at
// its price. A decrease that the trades since the last book do not explain
// is split between front and back by the queue model; growth joins behind.
func (m *Matcher) updateQueue(o *order, cur exchange.Fixed) {
	expected := max(0, o.level-o.traded)
	if d := expected - cur; d > 0 {
		back := max(0, expected-o.ahead)
		o.ahead -= m.cfg.Queue.frontDecrease(o.ahead, back, d, m.rng)
	}
	o.ahead = max(0, min(o.ahead, cur))
	o.level = cur
	o.traded = 0
}

// fill records a fill of size on o (size is clamped to what remains).
func (m *Matcher) fill(o *order, size, price exchange.Fixed, at time.Time, why FillReason, taker bool) {
	size = min(size, o.remaining)
	if size <= 0 {
		return
	}
	o.remaining -= size
	f := Fill{OrderID: o.ID, Side: o.Side, Price: price, Size: size, Remaining: o.remaining,
		Time: at, Taker: taker, Reason: why}
	if !o.filled {
		o.filled = true
		f.First = true
		f.Wait = at.Sub(o.activeAt)
	}
	m.fills = append(m.fills, f)
}

// sweep removes fully filled orders from the active list, keeping order.
func (m *Matcher) sweep() {
	n := 0
	for _, o := range m.active {
		if o.remaining > 0 {
			m.active[n] = o
			n++
			continue
		}
		m.release(o)
	}
	clear(m.active[n:])
	m.active = m.active[:n]
}

// advance applies, in time order, every activation and cancel due at or
// before now.
func (m *Matcher) advance(now time.Time) {
	for !m.nextAt.IsZero() && !m.nextAt.After(now) {
		m.step(now)
	}
}

// step applies the earliest transition if it is due at or before now, and
// recomputes nextAt (which may have been left early by an order that filled
// before its cancel took effect). A cancel due at the same instant as an
// activation goes first.
func (m *Matcher) step(now time.Time) {
	var best *order
	var bestAt time.Time
	isCancel := false
	consider := func(o *order, t time.Time, cancel bool) {
		if t.IsZero() {
			return
		}
		if best == nil || t.Before(bestAt) || t.Equal(bestAt) && cancel && !isCancel {
			best, bestAt, isCancel = o, t, cancel
		}
	}
	for _, o := range m.pending {
		consider(o, o.cancelAt, true)
		consider(o, o.activeAt, false)
	}
	for _, o := range m.active {
		consider(o, o.cancelAt, true)
	}
	if best != nil && !bestAt.After(now) {
		if isCancel {
			m.removeOrder(best)
		} else {
			m.activate(best, bestAt)
		}
	}
	m.nextAt = time.Time{}
	for _, o := range m.pending {
		m.schedule(o.activeAt)
		if !o.cancelAt.IsZero() {
			m.schedule(o.cancelAt)
		}
	}
	for _, o := range m.active {
		if !o.cancelAt.IsZero() {
			m.schedule(o.cancelAt)
		}
	}
}

// removeOrder drops o from the pending or active list and forgets it.
func (m *Matcher) removeOrder(o *order) {
	m.pending = deleteOrder(m.pending, o)
	m.active = deleteOrder(m.active, o)
	m.release(o)
}

func deleteOrder(list []*order, o *order) []*order {
	for i, x := range list {
		if x == o {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1]
		}
	}
	return list
}

// activate makes a pending order rest at time at: if it crosses the last
// book it first takes the opposite levels up to its price, then the rest
// joins the back of its level.
func (m *Matcher) activate(o *order, at time.Time) {
	m.pending = deleteOrder(m.pending, o)
	o.active = true
	if o.Side == exchange.Buy {
		for _, l := range m.book.Asks {
			if l.Price > o.Price || o.remaining == 0 {
				break
			}
			m.fill(o, l.Size, l.Price, at, FillTaker, true)
		}
	} else {
		for _, l := range m.book.Bids {
			if l.Price < o.Price || o.remaining == 0 {
				break
			}
			m.fill(o, l.Size, l.Price, at, FillTaker, true)
		}
	}
	if o.remaining == 0 {
		m.release(o)
		return
	}
	o.level = m.book.SizeAt(o.Side, o.Price)
	o.ahead = o.level
	m.active = append(m.active, o)
}

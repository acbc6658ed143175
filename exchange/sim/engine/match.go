package engine

import "time"

// opposite returns the side of the market book a taker o trades against.
func (o *Order) opposite() *bookSide {
	if o.bid {
		return &o.m.asks
	}
	return &o.m.bids
}

// match fills taker o against the opposite side while prices cross.
func (e *Engine) match(o *Order, now time.Time, res *Result) {
	side := o.opposite()
	for o.Remaining() > 0 {
		l := side.best()
		if l == nil || !side.crosses(l.price, o.bookPrice) {
			return
		}
		for mk := l.head; mk != nil && o.Remaining() > 0; mk = l.head {
			if mk.TIF == GTD && !mk.Expires.After(now) {
				e.cancelWith(mk, ReasonExpired, now)
				res.Canceled = append(res.Canceled, mk)
			} else if mk.Account == o.Account {
				e.cancelWith(mk, ReasonSelfTrade, now)
				res.Canceled = append(res.Canceled, mk)
			} else {
				e.fill(o, mk, l, now, res)
			}
		}
	}
}

// fill executes one match of taker o against maker mk resting at level l.
func (e *Engine) fill(o, mk *Order, l *level, now time.Time, res *Result) {
	size := min(o.Remaining(), mk.Remaining())
	p0 := l.price
	tp, mp := price0(o.Outcome, p0), price0(mk.Outcome, p0)
	tAmt, tEsc := e.settle(o, size, tp)
	mAmt, mEsc := e.settle(mk, size, mp)
	o.m.escrow += tEsc + mEsc
	o.m.last = p0

	l.size -= size
	o.Filled += size
	mk.Filled += size
	o.Updated, mk.Updated = now, now
	if o.Side == Buy {
		res.Making += tAmt
		res.Taking += size
	} else {
		res.Making += size
		res.Taking += tAmt
	}

	kind := Transfer
	switch {
	case o.Outcome != mk.Outcome && o.Side == Buy:
		kind = Mint
	case o.Outcome != mk.Outcome:
		kind = Merge
	}
	e.fillSeq++
	res.Fills = append(res.Fills, Fill{
		Seq: e.fillSeq, Time: now, Market: o.m.id, Kind: kind, Size: size, Price0: p0,
		Taker: Party{Order: o, Account: o.Account, Outcome: o.Outcome, Side: o.Side, Price: tp, Amount: tAmt},
		Maker: Party{Order: mk, Account: mk.Account, Outcome: mk.Outcome, Side: mk.Side, Price: mp, Amount: mAmt},
	})
	if mk.Remaining() == 0 {
		side := o.opposite()
		side.remove(mk) // level size already reduced; remaining is 0 now
		delete(e.orders, mk.ID)
		mk.Status = Matched
	}
}

// fillable is how much of o could fill at once, not counting resting orders
// of o's own account or expired ones.
func (e *Engine) fillable(o *Order, now time.Time) int64 {
	side := o.opposite()
	var n int64
	for i := len(side.levels) - 1; i >= 0 && n < o.Size; i-- {
		l := side.levels[i]
		if !side.crosses(l.price, o.bookPrice) {
			break
		}
		for mk := l.head; mk != nil && n < o.Size; mk = mk.next {
			if mk.Account == o.Account || (mk.TIF == GTD && !mk.Expires.After(now)) {
				continue
			}
			n += mk.Remaining()
		}
	}
	return n
}

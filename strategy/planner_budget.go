package strategy

import (
	"cmp"
	"math"
	"slices"
)

// change is one unit of work: a place (w ≥ 0), a cancel (h ≥ 0), or both: a
// replacement of an open order by a quote of the same outcome and side.
type change struct {
	w, h  int
	value float64
}

// build pairs the unmatched quotes and orders into changes, keeps the
// highest-value ones the budget allows, and writes the plan.
func (p *Planner) build(s *Snapshot, g grid, b Budget) Plan {
	p.changes = p.changes[:0]
	p.takenH = fillBool(p.takenH, len(p.haves)) // paired with a quote, or cancelled
	for wi := range p.wants {
		if p.matchW[wi] >= 0 {
			continue
		}
		w := &p.wants[wi]
		best, bestD := -1, math.Inf(1)
		for hi := range p.haves {
			h := &p.haves[hi]
			if p.matchH[hi] >= 0 || p.takenH[hi] || h.o != w.o || h.side != w.side {
				continue
			}
			if d := math.Abs(h.y - float64(w.y)); d < bestD {
				best, bestD = hi, d
			}
		}
		c := change{w: wi, h: best, value: w.value}
		if best >= 0 {
			p.takenH[best] = true
			c.value = max(c.value, p.haves[best].value)
		}
		p.changes = append(p.changes, c)
	}
	for hi := range p.haves {
		if p.matchH[hi] < 0 && !p.takenH[hi] {
			p.changes = append(p.changes, change{w: -1, h: hi, value: p.haves[hi].value})
		}
	}
	slices.SortStableFunc(p.changes, func(a, b change) int { return cmp.Compare(b.value, a.value) })

	// Take changes by value while the budget lasts. A replacement that only
	// has room for its cancel keeps the cancel: removing a stale order is
	// always safe, adding one next to it is not.
	var plan Plan
	clear(p.takenH) // now: cancelled
	places, cancels := b.Places, b.Cancels
	out := p.changes[:0]
	for _, c := range p.changes {
		needP, needC := c.w >= 0, c.h >= 0
		switch {
		case (!needP || places > 0) && (!needC || cancels > 0):
		case needC && cancels > 0:
			c.w = -1
			plan.Dropped++
		default:
			plan.Dropped += btoi(needP) + btoi(needC)
			continue
		}
		if needC && c.h >= 0 {
			cancels--
			p.takenH[c.h] = true
		}
		if c.w >= 0 {
			places--
		}
		out = append(out, c)
	}
	p.changes = out

	p.cancels, p.places, p.kept = p.cancels[:0], p.places[:0], p.kept[:0]
	for _, c := range p.changes {
		if c.h >= 0 {
			p.cancels = append(p.cancels, s.Open[p.haves[c.h].idx])
		}
	}
	for hi := range p.haves {
		if p.matchH[hi] >= 0 {
			p.kept = append(p.kept, s.Open[p.haves[hi].idx])
		}
	}
	for _, c := range p.changes {
		if c.w < 0 {
			continue
		}
		w := &p.wants[c.w]
		if p.crossesStaying(w.bid, float64(w.y)) {
			plan.Dropped++
			continue
		}
		p.places = append(p.places, Order{
			Outcome: w.o, TokenID: s.Tokens[w.o].TokenID, Side: w.side,
			Price: g.price(w.n), Size: size(w.cs), Level: w.level, Value: w.value,
		})
	}
	plan.Cancels, plan.Places, plan.Kept = p.cancels, p.places, p.kept
	return plan
}

// crossesStaying reports whether a quote would cross an open order that
// stays: kept, or not cancelled for lack of budget. Orders of an unknown
// outcome or side cannot be placed in YES space and are ignored here.
func (p *Planner) crossesStaying(bid bool, y float64) bool {
	for hi := range p.haves {
		h := &p.haves[hi]
		if p.takenH[hi] || !h.o.Valid() || !h.side.Valid() || h.bid == bid {
			continue
		}
		if crosses(bid, y, h.y) {
			return true
		}
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

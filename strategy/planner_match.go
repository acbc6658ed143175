package strategy

import (
	"cmp"
	"slices"
)

// cand is an open order close enough to a desired quote to stand for it.
type cand struct {
	h       int
	dn, dcs int64
}

// match pairs desired quotes with open orders within tolerance, as many
// pairs as possible (a maximum bipartite matching, Kuhn's augmenting
// paths), trying the highest-value quotes first and, for each, the closest
// orders first. Maximum cardinality is what makes the planner idempotent: an
// order set it produced always matches its own desired quotes again.
func (p *Planner) match(tol Tolerance) {
	nw, nh := len(p.wants), len(p.haves)
	p.matchW = fill(p.matchW, nw, -1)
	p.matchH = fill(p.matchH, nh, -1)
	p.adj, p.adjAt = p.adj[:0], p.adjAt[:0]
	for wi := range p.wants {
		w := &p.wants[wi]
		p.adjAt = append(p.adjAt, len(p.adj))
		p.cands = p.cands[:0]
		maxDcs := tol.SizeFrac*float64(w.cs) + 1e-9
		for hi := range p.haves {
			h := &p.haves[hi]
			if !h.usable || h.o != w.o || h.side != w.side {
				continue
			}
			dn, dcs := abs(h.n-w.n), abs(h.cs-w.cs)
			if dn > int64(tol.PriceTicks) || float64(dcs) > maxDcs {
				continue
			}
			p.cands = append(p.cands, cand{h: hi, dn: dn, dcs: dcs})
		}
		slices.SortFunc(p.cands, func(a, b cand) int {
			return cmp.Or(cmp.Compare(a.dn, b.dn), cmp.Compare(a.dcs, b.dcs), cmp.Compare(a.h, b.h))
		})
		for _, c := range p.cands {
			p.adj = append(p.adj, c.h)
		}
	}
	p.adjAt = append(p.adjAt, len(p.adj))

	p.order = p.order[:0]
	for wi := range p.wants {
		p.order = append(p.order, wi)
	}
	wants := p.wants
	slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(wants[b].value, wants[a].value) })
	p.seen = fillBool(p.seen, nh)
	for _, wi := range p.order {
		clear(p.seen)
		p.augment(wi)
	}
}

func (p *Planner) augment(wi int) bool {
	for _, hi := range p.adj[p.adjAt[wi]:p.adjAt[wi+1]] {
		if p.seen[hi] {
			continue
		}
		p.seen[hi] = true
		if p.matchH[hi] < 0 || p.augment(p.matchH[hi]) {
			p.matchH[hi], p.matchW[wi] = wi, hi
			return true
		}
	}
	return false
}

// resolveConflicts un-keeps any kept order that crosses another order of
// the final set (kept orders and the desired quotes to place) in YES space:
// tolerance may leave a kept bid a tick above its quote, right on top of a
// new ask. The desired quotes alone never cross (prepareWants), so replacing
// kept orders by their quotes always ends.
func (p *Planner) resolveConflicts() {
	for changed := true; changed; {
		changed = false
		for hi := range p.haves {
			if p.matchH[hi] < 0 {
				continue
			}
			h := &p.haves[hi]
			if p.crossesFinal(h.bid, h.y, hi) {
				p.matchW[p.matchH[hi]] = -1
				p.matchH[hi] = -1
				changed = true
			}
		}
	}
}

// crossesFinal reports whether a YES-space order (bid or ask at y ticks)
// crosses an order of the final set other than have skip.
func (p *Planner) crossesFinal(bid bool, y float64, skip int) bool {
	for hi := range p.haves {
		if hi == skip || p.matchH[hi] < 0 {
			continue
		}
		h := &p.haves[hi]
		if h.bid != bid && crosses(bid, y, h.y) {
			return true
		}
	}
	for wi := range p.wants {
		if p.matchW[wi] >= 0 {
			continue
		}
		w := &p.wants[wi]
		if w.bid != bid && crosses(bid, y, float64(w.y)) {
			return true
		}
	}
	return false
}

// crosses reports whether an order at y (a bid when bid) crosses an order of
// the other kind at other: a bid at or above an ask.
func crosses(bid bool, y, other float64) bool {
	if bid {
		return y >= other-1e-9
	}
	return other >= y-1e-9
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func fill(s []int, n, v int) []int {
	s = slices.Grow(s[:0], n)[:n]
	for i := range s {
		s[i] = v
	}
	return s
}

func fillBool(s []bool, n int) []bool {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

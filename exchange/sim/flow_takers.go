package sim

import (
	"math"
	"time"

	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// maxTakerShares caps a drawn taker size at the engine's largest order.
const maxTakerShares = 1_000_000

// takerSize draws a taker's size in base units: Pareto with tail index
// TakerTail and median TakerSize, at least the market's minimum and at
// most maxTakerShares.
func (f *flow) takerSize(s *mstate) int64 {
	a := f.cfg.TakerTail
	scale := f.cfg.TakerSize / math.Pow(2, 1/a)
	u := 1 - f.r.Float64() // (0, 1]
	shares := min(maxTakerShares, scale*math.Pow(u, -1/a))
	return max(s.minSize, roundLot(shares))
}

// take sends one taker order: with probability Informed an informed taker
// that buys whichever outcome the book offers below the true value, limit
// at the true value; otherwise a noise taker that buys or sells a random
// outcome two ticks through the touch. Both are FAK.
func (f *flow) take(s *mstate, m *flowMarket, now time.Time) {
	size := f.takerSize(s)
	if f.r.Float64() < max(0, f.cfg.Informed) {
		if !f.inform(s, m, size, now) && f.cfg.InformedPatience > 0 && len(m.waiting) < maxWaiting {
			m.waiting = append(m.waiting, waiter{size: size, until: now.Add(f.cfg.InformedPatience)})
		}
		return
	}
	outcome := f.r.IntN(2)
	tok := s.m.TokenIDs[outcome]
	bid, ask, _ := f.e.eng.BestBidAsk(tok)
	slip := 2 * s.tick
	if f.r.IntN(2) == 0 && f.e.eng.ShareBalance(f.noise.id(), tok) >= size && bid > 0 {
		f.place(f.noise, s, outcome, engine.Sell, max(s.tick, bid-slip), size, engine.FAK, now)
		return
	}
	if ask > 0 {
		f.place(f.noise, s, outcome, engine.Buy, min(engine.Unit-s.tick, ask+slip), size, engine.FAK, now)
	}
}

// inform sends an informed order of size toward the true value as the
// informed see it (FlowConfig.Horizon ahead, with the jumps they know of
// before they are public, FlowConfig.NewsLeak) when the book is on the wrong
// side of it: it buys outcome 0 up to the true value
// when the best ask is below it, outcome 1 up to its complement when the
// best bid is above it, and does nothing otherwise.
func (f *flow) inform(s *mstate, m *flowMarket, size int64, now time.Time) bool {
	v := sigmoid(max(-logitCap, min(logitCap, m.ahead+m.jump+m.leaked())))
	bid0, ask0, _ := f.e.eng.BestBidAsk(s.m.TokenIDs[0])
	traded := false
	switch p, q := floorTick(v, s.tick), floorTick(1-v, s.tick); {
	case ask0 > 0 && ask0 < p && p >= s.tick:
		traded = f.place(f.informed, s, 0, engine.Buy, p, size, engine.FAK, now)
	case bid0 > 0 && engine.Unit-bid0 < q && q >= s.tick:
		traded = f.place(f.informed, s, 1, engine.Buy, q, size, engine.FAK, now)
	default:
		return false
	}
	if traded {
		m.learn(f.cfg.InformedImpact)
	}
	return true
}

// maxWaiting bounds the informed takers waiting in one market.
const maxWaiting = 256

// retry lets the waiting informed takers trade, oldest first, and drops
// those whose patience ran out.
func (f *flow) retry(s *mstate, m *flowMarket, now time.Time) {
	k := 0
	for _, w := range m.waiting {
		if now.After(w.until) || f.inform(s, m, w.size, now) {
			continue
		}
		m.waiting[k] = w
		k++
	}
	clear(m.waiting[k:])
	m.waiting = m.waiting[:k]
}

// sweep sends one order of a news burst: NewsSweepSize shares toward the
// true value, through as many levels as lie on the wrong side of it.
func (f *flow) sweep(s *mstate, m *flowMarket, now time.Time) {
	f.inform(s, m, max(s.minSize, roundLot(f.cfg.NewsSweepSize)), now)
}

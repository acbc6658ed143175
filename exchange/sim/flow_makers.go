package sim

import (
	"time"

	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// requote replaces the background maker's orders in a market: a ladder of
// BUY orders on both outcomes around the public value, and, in a market
// that pays liquidity rewards, RewardMakers orders a side of the reward
// minimum size at half the reward band from the public value (they compete
// for the reward pool).
func (f *flow) requote(s *mstate, m *flowMarket, now time.Time) {
	id := s.id
	f.e.eng.CancelAll(f.maker.id(), id, now)
	fair := sigmoid(m.pub)
	s.requote, s.ladder = now, fair
	size := max(s.minSize, roundLot(f.cfg.MakerSize))
	for k := 0; k < f.cfg.MakerLevels; k++ {
		off := f.cfg.MakerHalfSpread + float64(k)*f.cfg.MakerSpacing
		f.quotePair(s, fair-off, fair+off, size, now)
	}
	if f.cfg.RewardMakers > 0 && s.m.Rewards.DailyRate.IsPositive() && s.m.Rewards.MaxSpread.IsPositive() {
		half := s.m.Rewards.MaxSpread.InexactFloat64() / 100 / 2
		rsize := max(s.minSize, roundLot(s.m.Rewards.MinSize.InexactFloat64()))
		for k := 0; k < f.cfg.RewardMakers; k++ {
			f.quotePair(s, fair-half, fair+half, rsize, now)
		}
	}
	f.e.touch(id)
}

// quotePair places a bid (BUY outcome 0) at or below bid and an ask (BUY
// outcome 1 at 1 − the ask) at or above ask, each of size, where the tick
// grid allows.
func (f *flow) quotePair(s *mstate, bid, ask float64, size int64, now time.Time) {
	b := floorTick(bid, s.tick)
	a := ceilTick(ask, s.tick)
	if b >= s.tick {
		f.place(f.maker, s, 0, engine.Buy, b, size, engine.GTC, now)
	}
	if a <= engine.Unit-s.tick {
		f.place(f.maker, s, 1, engine.Buy, engine.Unit-a, size, engine.GTC, now)
	}
}

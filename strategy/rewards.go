package strategy

import (
	"fmt"
	"math"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// centsToPrice converts the published max spread (cents) to price units.
// The scoring rule itself is exchange's (exchange.RewardSides and friends):
// one implementation for the strategy, the backtest and the simulator.
const centsToPrice = 0.01

// RewardParams configure the reward-aware constraint (WithRewards).
type RewardParams struct {
	// Enabled turns the constraint on for markets that pay rewards.
	Enabled bool
	// Always skips the per-market decision: every paying market is quoted
	// inside the band. Otherwise each market is quoted there only while
	// the expected reward beats the expected adverse selection.
	Always bool
	// MarkoutHorizon (one of MarkoutHorizons) and MarkoutFills are the
	// evidence of adverse selection: the mean markout per share of the
	// market's last MarkoutFills fills at that horizon, and the rate at
	// which they were filled. Until that many fills are measured the
	// market is taken to cost nothing.
	MarkoutHorizon time.Duration
	MarkoutFills   int
	// Hold is how long a market's decision stands before it is made again.
	Hold time.Duration
	// MaxSize (shares) and MaxNotional (collateral), when positive, are
	// the largest order the risk limits let out (risk.max_order_size,
	// risk.max_order_notional): band quotes that need more (a reward
	// minimum size above them) would be refused or shrunk below the
	// minimum, so such a market is not quoted in the band.
	MaxSize, MaxNotional float64
}

// DefaultRewardParams returns the documented defaults (docs/strategies.md):
// on, decided per market on the last 20 fills' 10 s markouts, every minute.
func DefaultRewardParams() RewardParams {
	return RewardParams{Enabled: true, MarkoutHorizon: 10 * time.Second, MarkoutFills: 20, Hold: time.Minute}
}

// Validate reports the first invalid field by name.
func (p RewardParams) Validate() error {
	if !(p.MaxSize >= 0) || !(p.MaxNotional >= 0) || math.IsInf(p.MaxSize, 0) || math.IsInf(p.MaxNotional, 0) {
		return fmt.Errorf("strategy: rewards: MaxSize and MaxNotional must be finite and >= 0, got %v and %v", p.MaxSize, p.MaxNotional)
	}
	if !p.Enabled || p.Always {
		return nil
	}
	if _, ok := MarkoutHorizonIndex(p.MarkoutHorizon); !ok {
		return fmt.Errorf("strategy: rewards: MarkoutHorizon must be one of %v, got %s", MarkoutHorizons, p.MarkoutHorizon)
	}
	if p.MarkoutFills < 1 || p.MarkoutFills > markoutRing {
		return fmt.Errorf("strategy: rewards: MarkoutFills must be in [1, %d], got %d", markoutRing, p.MarkoutFills)
	}
	if p.Hold < 0 {
		return fmt.Errorf("strategy: rewards: Hold must be >= 0, got %s", p.Hold)
	}
	return nil
}

type rewarded struct {
	inner Model
	p     RewardParams
}

// WithRewards wraps m with the reward-aware constraint. When enabled and the
// market pays rewards, every quote is pulled to within the max spread of the
// YES mid (one tick inside it, so that rounding away from the mid cannot
// push it out), raised to at least the reward minimum size, quotes that land
// on the same price are merged, and when the mid is outside [0.10, 0.90] a
// missing side is added (only two-sided liquidity scores there).
//
// Unless p.Always, it first decides per market whether that pays (decide):
// the expected reward of the constrained quotes against the visible book
// must beat the expected adverse selection measured by the market's
// markouts. The decision is kept in the MarketState (MarketState.Rewards)
// for p.Hold; with a nil state it is made at every call without markouts.
func WithRewards(m Model, p RewardParams) (Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &rewarded{inner: m, p: p}, nil
}

// Quote implements Model.
func (r *rewarded) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	n := len(dst)
	dst = r.inner.Quote(dst, s, st)
	if !r.p.Enabled || len(dst) == n {
		return dst
	}
	if !r.p.Always && st != nil && st.Rewards.Decided && s.Now.Sub(st.Rewards.At) < r.p.Hold {
		if !st.Rewards.Pays {
			return dst
		}
		return constrainRewards(dst, n, s, st)
	}
	if r.p.Always {
		return constrainRewards(dst, n, s, st)
	}
	orig := append([]Desired(nil), dst[n:]...)
	dst = constrainRewards(dst, n, s, st)
	d := r.decide(dst[n:], s, st)
	if st != nil {
		st.Rewards = d
	}
	if !d.Pays {
		return append(dst[:n], orig...)
	}
	return dst
}

// constrainRewards pulls dst[n:] into the market's reward band (see
// WithRewards); it leaves them as they are when the market pays nothing or
// has no mid.
func constrainRewards(dst []Desired, n int, s *Snapshot, st *MarketState) []Desired {
	v := s.Rewards.MaxSpread.InexactFloat64() * centsToPrice
	tick := s.Tick.InexactFloat64()
	allowed := v - tick
	mid, ok := rewardMid(s, st)
	if !(allowed > 0) || !ok {
		return dst
	}
	minSize := max(s.Rewards.MinSize.InexactFloat64(), s.MinSize.InexactFloat64())
	var hasBid, hasAsk bool
	for i := n; i < len(dst); i++ {
		d := &dst[i]
		y := toYes(d.Outcome, d.Price)
		if bidLike(d.Outcome, d.Side) {
			y = max(y, mid-allowed)
			hasBid = true
		} else {
			y = min(y, mid+allowed)
			hasAsk = true
		}
		d.Price = toYes(d.Outcome, y)
		d.Size = max(d.Size, minSize)
	}
	dst = mergeSamePrice(dst, n)
	if mid < exchange.RewardMidLow || mid > exchange.RewardMidHigh {
		if !hasBid && len(dst) > n && mid-allowed > 0 {
			dst = append(dst, Desired{Outcome: Yes, Side: exchange.Buy, Price: mid - allowed, Size: minSize})
		}
		if !hasAsk && len(dst) > n && mid+allowed < 1 {
			dst = append(dst, Desired{Outcome: No, Side: exchange.Buy, Price: 1 - (mid + allowed), Size: minSize})
		}
	}
	return dst
}

// rewardMid is the YES book's mid as published (the exchange scores against
// it), or the fair value.
func rewardMid(s *Snapshot, st *MarketState) (float64, bool) {
	if m, ok := s.Top(Yes).Mid(); ok {
		return m, true
	}
	return fairOf(s, st)
}

// mergeSamePrice folds quotes of dst[from:] with the same outcome, side and
// price (to 1e-9) into the first of them, adding sizes.
func mergeSamePrice(dst []Desired, from int) []Desired {
	out := from
	for i := from; i < len(dst); i++ {
		d := dst[i]
		merged := false
		for j := from; j < out; j++ {
			if dst[j].Outcome == d.Outcome && dst[j].Side == d.Side && math.Abs(dst[j].Price-d.Price) < 1e-9 {
				dst[j].Size += d.Size
				merged = true
				break
			}
		}
		if !merged {
			dst[out] = d
			out++
		}
	}
	return dst[:out]
}

package strategy

import (
	"fmt"
	"math"

	"github.com/mmbot/mmbot/exchange"
)

// Liquidity-reward rules, as the exchange publishes them: an order's score
// is S = ((v − s)/v)² for its distance s from the mid inside the max spread
// v, times its size; Q_one sums bid-like orders (bids on YES, asks on NO) and
// Q_two ask-like ones; single-sided liquidity counts at 1/c when the mid is
// in [0.10, 0.90], and not at all outside it.
const (
	rewardC      = 3.0
	rewardMidLo  = 0.10
	rewardMidHi  = 0.90
	centsToPrice = 0.01
)

// OrderScore returns ((v − s)/v)² for a distance s from the mid strictly
// inside the max spread v (same units), else 0.
func OrderScore(v, s float64) float64 {
	if !(v > 0) || !(s >= 0) || s >= v {
		return 0
	}
	r := (v - s) / v
	return r * r
}

// QMin combines the two sides' scores: for a mid in [0.10, 0.90],
// max(min(Q1,Q2), max(Q1/c, Q2/c)) with c = 3; outside it, min(Q1,Q2).
func QMin(qOne, qTwo, mid float64) float64 {
	if mid >= rewardMidLo && mid <= rewardMidHi {
		return max(min(qOne, qTwo), max(qOne/rewardC, qTwo/rewardC))
	}
	return min(qOne, qTwo)
}

// RewardParams switch the reward-aware constraint on.
type RewardParams struct {
	Enabled bool
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
func WithRewards(m Model, p RewardParams) Model { return &rewarded{inner: m, p: p} }

// Quote implements Model.
func (r *rewarded) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	n := len(dst)
	dst = r.inner.Quote(dst, s, st)
	if !r.p.Enabled {
		return dst
	}
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
	if mid < rewardMidLo || mid > rewardMidHi {
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

// RewardEstimate is the instantaneous reward picture of one market: our
// side scores and Q_min, the rest of the book's, our share of the two, and
// that share of the daily pool.
type RewardEstimate struct {
	Mid          float64
	QOne, QTwo   float64 // ours
	QMin         float64 // ours
	BookQMin     float64 // everyone else's, from the book less our orders
	Share        float64 // QMin / (QMin + BookQMin)
	DailyRewards float64 // Share × the market's daily rate
}

// String formats the estimate for logs and reports.
func (e RewardEstimate) String() string {
	return fmt.Sprintf("mid %.4f Q1 %.2f Q2 %.2f Qmin %.2f book Qmin %.2f share %.2f%% daily %.4f",
		e.Mid, e.QOne, e.QTwo, e.QMin, e.BookQMin, 100*e.Share, e.DailyRewards)
}

// EstimateRewards scores our resting orders (after a plan: the kept open
// orders and the new places) against the book. Orders below the reward
// minimum size score nothing. It assumes each token's book lists only that
// token's orders. The exchange samples scores over time and normalizes over
// all makers; this is a snapshot estimate for reports.
func EstimateRewards(s *Snapshot, ours []OpenOrder) RewardEstimate {
	var e RewardEstimate
	v := s.Rewards.MaxSpread.InexactFloat64() * centsToPrice
	mid, ok := s.Top(Yes).Mid()
	if !(v > 0) || !ok {
		return e
	}
	e.Mid = mid
	minSize := s.Rewards.MinSize.InexactFloat64()
	for i := range ours {
		o := &ours[i]
		sz := o.Size.InexactFloat64()
		if !o.Outcome.Valid() || sz < minSize {
			continue
		}
		y := toYes(o.Outcome, o.Price.InexactFloat64())
		sc := OrderScore(v, math.Abs(y-mid)) * sz
		if bidLike(o.Outcome, o.Side) {
			e.QOne += sc
		} else {
			e.QTwo += sc
		}
	}
	e.QMin = QMin(e.QOne, e.QTwo, mid)
	var one, two float64
	for o := Yes; o <= No; o++ {
		tokMid := toYes(o, mid) // the map is its own inverse
		b := &s.Tokens[o]
		for side, levels := range [2][]exchange.PriceLevel{b.Bids, b.Asks} {
			sd := exchange.Buy
			if side == 1 {
				sd = exchange.Sell
			}
			for i := range levels {
				p := levels[i].Price.InexactFloat64()
				sz := levels[i].Size.InexactFloat64() - s.ownAt(o, sd, p)
				if sz < minSize || sz <= sizeEps {
					continue
				}
				sc := OrderScore(v, math.Abs(p-tokMid)) * sz
				if bidLike(o, sd) {
					one += sc
				} else {
					two += sc
				}
			}
		}
	}
	e.BookQMin = QMin(one, two, mid)
	if tot := e.QMin + e.BookQMin; tot > 0 {
		e.Share = e.QMin / tot
	}
	e.DailyRewards = e.Share * s.Rewards.DailyRate.InexactFloat64()
	return e
}

// ownAt sums our open size on outcome o, side sd at price p.
func (s *Snapshot) ownAt(o Outcome, sd exchange.Side, p float64) float64 {
	var n float64
	for j := range s.Open {
		oo := &s.Open[j]
		if oo.Outcome == o && oo.Side == sd && oo.Price.InexactFloat64() == p {
			n += oo.Size.InexactFloat64()
		}
	}
	return n
}

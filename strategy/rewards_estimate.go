package strategy

import (
	"fmt"

	"github.com/mmbot/mmbot/exchange"
)

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

// RewardRule returns the market's scoring terms in exchange units, and
// false when it pays no rewards (no max spread or no daily rate) or its
// terms do not convert.
func (s *Snapshot) RewardRule() (exchange.RewardRule, bool) {
	if !s.Rewards.MaxSpread.IsPositive() || !s.Rewards.DailyRate.IsPositive() {
		return exchange.RewardRule{}, false
	}
	v, err := exchange.FixedFromDecimal(s.Rewards.MaxSpread.Shift(-2)) // cents to price units
	if err != nil || v <= 0 {
		return exchange.RewardRule{}, false
	}
	m, err := exchange.FixedFromDecimal(s.Rewards.MinSize)
	if err != nil || m < 0 {
		return exchange.RewardRule{}, false
	}
	return exchange.RewardRule{MaxSpread: v, MinSize: m}, true
}

// EstimateRewards scores our resting orders (after a plan: the kept open
// orders and the new places) against the book with exchange's rule. The
// books hold our open orders (s.Open): those are taken out of the book's
// score. When the two tokens' books mirror each other (two views of one
// market book, as the exchange shows them: exchange.BooksMirror) only the
// YES book is scored; otherwise each token's book is taken to list only
// that token's orders and both are.
// The exchange samples scores over time and normalizes over all makers;
// this is a snapshot estimate.
func EstimateRewards(s *Snapshot, ours []OpenOrder) RewardEstimate {
	var e RewardEstimate
	rule, ok := s.RewardRule()
	mid, hasMid := s.Top(Yes).Mid()
	if !ok || !hasMid {
		return e
	}
	e.Mid = mid
	var q exchange.RewardSides
	for i := range ours {
		o := &ours[i]
		if !o.Outcome.Valid() {
			continue
		}
		q.Add(rule, mid, toYes(o.Outcome, o.Price.InexactFloat64()), o.Size.InexactFloat64(), bidLike(o.Outcome, o.Side))
	}
	e.QOne, e.QTwo, e.QMin = q.One, q.Two, q.QMin(mid)
	e.BookQMin = bookRewardQMin(s, rule, mid)
	e.finish(s)
	return e
}

// finish sets the share and the daily income from QMin and BookQMin.
func (e *RewardEstimate) finish(s *Snapshot) {
	if tot := e.QMin + e.BookQMin; tot > 0 {
		e.Share = e.QMin / tot
	}
	e.DailyRewards = e.Share * s.Rewards.DailyRate.InexactFloat64()
}

// bookRewardQMin scores the visible book less our open orders as one
// account: the competition we share the pool with. Each level counts as
// one order (the book hides how a level splits between makers).
func bookRewardQMin(s *Snapshot, rule exchange.RewardRule, mid float64) float64 {
	var q exchange.RewardSides
	last := No
	if s.booksMirror() {
		last = Yes
	}
	for o := Yes; o <= last; o++ {
		b := &s.Tokens[o]
		for side, levels := range [2][]exchange.PriceLevel{b.Bids, b.Asks} {
			sd := exchange.Buy
			if side == 1 {
				sd = exchange.Sell
			}
			for i := range levels {
				p := levels[i].Price.InexactFloat64()
				sz := levels[i].Size.InexactFloat64() - s.ownAt(o, sd, p)
				if sz <= sizeEps {
					continue
				}
				q.Add(rule, mid, toYes(o, p), sz, bidLike(o, sd))
			}
		}
	}
	return q.QMin(mid)
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

// booksMirror reports whether the NO book is a view of the YES book.
func (s *Snapshot) booksMirror() bool {
	var top [4]exchange.Fixed
	for o := Yes; o <= No; o++ {
		b := &s.Tokens[o]
		if len(b.Bids) > 0 {
			top[2*o], _ = exchange.FixedFromDecimal(b.Bids[0].Price)
		}
		if len(b.Asks) > 0 {
			top[2*o+1], _ = exchange.FixedFromDecimal(b.Asks[0].Price)
		}
	}
	return exchange.BooksMirror(top[0], top[1], top[2], top[3])
}

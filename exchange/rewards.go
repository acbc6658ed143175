package exchange

import "math"

// The liquidity-reward scoring rule, as the exchange publishes it. It is the
// one implementation: the strategy's estimate, the backtest's fill model
// and the simulated exchange all score with it.
//
// An order of size x at distance s from the market's mid, strictly inside
// the program's max spread v and of at least its minimum size, scores
// ((v − s)/v)² × x. Q_one sums the bid-like orders of a market (BUYs of
// its first token, SELLs of its second) and Q_two the ask-like ones. For a
// mid in [0.10, 0.90] one-sided liquidity counts at a third:
// Q_min = max(min(Q_one, Q_two), max(Q_one, Q_two)/3); outside that range
// only two-sided liquidity counts: Q_min = min(Q_one, Q_two). Each sample,
// a market's pool is shared among the accounts pro rata of their Q_min.
const (
	RewardSingleSidedDivisor = 3.0  // c: one-sided liquidity counts at 1/c
	RewardMidLow             = 0.10 // below it only two-sided liquidity counts
	RewardMidHigh            = 0.90 // above it likewise
	// RewardDay is the period of a program's daily rate.
	RewardDay = 24 * 60 * 60 // seconds
)

// RewardOrderScore returns ((v − s)/v)² for a distance s from the mid
// strictly inside the max spread v (both in price units), else 0.
func RewardOrderScore(v, s float64) float64 {
	if !(v > 0) || !(s >= 0) || s >= v {
		return 0
	}
	r := (v - s) / v
	return r * r
}

// RewardQMin combines the two sides' scores of one account at mid.
func RewardQMin(qOne, qTwo, mid float64) float64 {
	if mid >= RewardMidLow && mid <= RewardMidHigh {
		return max(min(qOne, qTwo), max(qOne, qTwo)/RewardSingleSidedDivisor)
	}
	return min(qOne, qTwo)
}

// RewardRule is one market's scoring terms in exchange units: MaxSpread in
// price units (the catalog's 3 cents is 0.03) and MinSize in shares. A zero
// MaxSpread scores nothing.
type RewardRule struct {
	MaxSpread Fixed
	MinSize   Fixed
}

// RewardSides accumulates one account's Q_one and Q_two in one market.
type RewardSides struct {
	One, Two float64
}

// Add scores one resting order of size shares at price, both in terms of
// the market's first token (a price p of the second token is 1 − p here),
// bid-like or not, against mid, and adds it to its side. Orders below the
// minimum size or at or beyond the max spread add nothing. Prices and sizes
// are floats: scores are a model, and a base-unit amount converts exactly
// enough (Fixed.Float) for the size test's tolerance of 10⁻⁹ shares.
func (q *RewardSides) Add(r RewardRule, mid, price, size float64, bidLike bool) {
	if r.MaxSpread <= 0 || !(size > 0) || size < r.MinSize.Float()-rewardSizeEps {
		return
	}
	sc := RewardOrderScore(r.MaxSpread.Float(), math.Abs(price-mid)) * size
	if bidLike {
		q.One += sc
	} else {
		q.Two += sc
	}
}

// rewardSizeEps absorbs float conversions in the minimum-size test.
const rewardSizeEps = 1e-9

// QMin returns the account's Q_min at mid.
func (q RewardSides) QMin(mid float64) float64 { return RewardQMin(q.One, q.Two, mid) }

// RewardMid is the mid of a market's first token from its best bid and ask
// (price units), and false when either side is empty.
func RewardMid(bestBid, bestAsk Fixed) (float64, bool) {
	if bestBid <= 0 || bestAsk <= 0 || bestAsk < bestBid {
		return 0, false
	}
	return (bestBid.Float() + bestAsk.Float()) / 2, true
}

// RewardPool is the part of a daily rate that one sample of length
// seconds pays, rounded down to a base unit.
func RewardPool(dailyRate Fixed, seconds float64) Fixed {
	if dailyRate <= 0 || !(seconds > 0) {
		return 0
	}
	return Fixed(math.Floor(float64(dailyRate) * seconds / RewardDay))
}

// SplitReward shares pool among scores pro rata, each rounded down to a
// base unit, so that the parts never sum to more than pool. An account with
// a score of 0 (or less) gets nothing; with no positive score nobody does.
func SplitReward(pool Fixed, scores []float64) []Fixed {
	out := make([]Fixed, len(scores))
	var total float64
	for _, s := range scores {
		if s > 0 {
			total += s
		}
	}
	if pool <= 0 || !(total > 0) {
		return out
	}
	var paid Fixed
	for i, s := range scores {
		if s > 0 {
			out[i] = Fixed(math.Floor(float64(pool) * (s / total)))
			paid += out[i]
		}
	}
	if paid > pool { // float rounding: take the excess back from the largest part
		big := 0
		for i := range out {
			if out[i] > out[big] {
				big = i
			}
		}
		out[big] -= paid - pool
	}
	return out
}

// BooksMirror reports whether a market's two token books are two views of
// one market book, as the exchange (and the simulator) publishes them: the
// second token's best bid is one minus the first's best ask and its best
// ask one minus the first's best bid (0 for an empty side). A scorer then
// counts the first token's book only, or it would count every order twice.
func BooksMirror(bid0, ask0, bid1, ask1 Fixed) bool {
	comp := func(p Fixed) Fixed {
		if p <= 0 {
			return 0
		}
		return FixedScale - p
	}
	return (bid0 > 0 || ask0 > 0) && bid1 == comp(ask0) && ask1 == comp(bid0)
}

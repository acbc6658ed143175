package fillmodel

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// RewardInterval is how often the backtest and paper venues sample the
// liquidity-reward program, as the exchange (and the simulator) do.
const RewardInterval = time.Minute

// RewardTerms are a market's liquidity-reward program in exchange units:
// the scoring rule (exchange.RewardRule: max spread in price units, minimum
// size) and the pool per day.
type RewardTerms struct {
	Rule      exchange.RewardRule
	DailyRate exchange.Fixed
}

// NewRewardTerms converts terms as the catalog publishes them: the max
// spread in cents, the minimum size in shares, the daily rate in
// collateral. Zero terms pay nothing and are no error.
func NewRewardTerms(maxSpreadCents, minSize, dailyRate decimal.Decimal) (RewardTerms, error) {
	v, err := exchange.FixedFromDecimal(maxSpreadCents.Shift(-2))
	if err != nil || v < 0 {
		return RewardTerms{}, fmt.Errorf("reward max spread %s cents: not a price in 6 decimals", maxSpreadCents)
	}
	m, err := exchange.FixedRound(minSize, exchange.RoundTrunc)
	if err != nil || m < 0 {
		return RewardTerms{}, fmt.Errorf("reward minimum size %s: invalid", minSize)
	}
	r, err := exchange.FixedRound(dailyRate, exchange.RoundTrunc)
	if err != nil || r < 0 {
		return RewardTerms{}, fmt.Errorf("reward daily rate %s: invalid", dailyRate)
	}
	return RewardTerms{Rule: exchange.RewardRule{MaxSpread: v, MinSize: m}, DailyRate: r}, nil
}

// Pays reports whether the program pays anything.
func (t RewardTerms) Pays() bool { return t.Rule.MaxSpread > 0 && t.DailyRate > 0 }

// RewardScore is what one or more samples of one market scored: our Q_min
// and the whole market's (ours plus the visible book's), each summed over
// the samples, and our part of the samples' pools.
type RewardScore struct {
	Ours, Total float64
	Earned      exchange.Fixed
}

// ScoreMarket scores one market at one sample with exchange's rule: our
// resting orders (ours, by outcome index, outcome 0 first) against the
// recorded books of the two tokens (books, by outcome index: the
// competition is the visible depth, which never holds our virtual orders;
// the second book only when it is not a mirror of the first, see
// exchange.BooksMirror), each visible level counted as one order, against the mid of outcome 0's
// book (of outcome 1's, mirrored, when outcome 0's has no two sides). The
// score counts n times, and Earned is our pro-rata part of n intervals'
// pools, rounded down to a base unit. ok is false when the market pays
// nothing or has no mid.
func ScoreMarket(t RewardTerms, books [2]*recording.FixedBook, ours [2][]OrderState, n int) (s RewardScore, ok bool) {
	if !t.Pays() || n <= 0 {
		return s, false
	}
	mid, ok := bookMid(books)
	if !ok {
		return s, false
	}
	var us, them exchange.RewardSides
	mirror := booksMirror(books)
	for o := range 2 {
		for i := range ours[o] {
			st := &ours[o][i]
			if st.Active {
				us.Add(t.Rule, mid, yesPrice(o, st.Price), st.Remaining.Float(), bidLike(o, st.Side))
			}
		}
		if books[o] == nil || (o == 1 && mirror) {
			continue
		}
		for _, l := range books[o].Bids {
			them.Add(t.Rule, mid, yesPrice(o, l.Price), l.Size.Float(), bidLike(o, exchange.Buy))
		}
		for _, l := range books[o].Asks {
			them.Add(t.Rule, mid, yesPrice(o, l.Price), l.Size.Float(), bidLike(o, exchange.Sell))
		}
	}
	q, b := us.QMin(mid), them.QMin(mid)
	pool := exchange.RewardPool(t.DailyRate, RewardInterval.Seconds()) * exchange.Fixed(n)
	parts := exchange.SplitReward(pool, []float64{q, b})
	return RewardScore{Ours: q * float64(n), Total: (q + b) * float64(n), Earned: parts[0]}, true
}

// bookMid is outcome 0's mid from its book, or from outcome 1's mirrored.
func bookMid(books [2]*recording.FixedBook) (float64, bool) {
	if b := books[0]; b != nil && len(b.Bids) > 0 && len(b.Asks) > 0 {
		return exchange.RewardMid(b.Bids[0].Price, b.Asks[0].Price)
	}
	if b := books[1]; b != nil && len(b.Bids) > 0 && len(b.Asks) > 0 {
		m, ok := exchange.RewardMid(b.Bids[0].Price, b.Asks[0].Price)
		return 1 - m, ok
	}
	return 0, false
}

// booksMirror reports whether the two books are views of one market book
// (exchange.BooksMirror): then the second adds nothing.
func booksMirror(books [2]*recording.FixedBook) bool {
	var top [4]exchange.Fixed
	for o, b := range books {
		if b == nil {
			continue
		}
		if len(b.Bids) > 0 {
			top[2*o] = b.Bids[0].Price
		}
		if len(b.Asks) > 0 {
			top[2*o+1] = b.Asks[0].Price
		}
	}
	return exchange.BooksMirror(top[0], top[1], top[2], top[3])
}

// yesPrice is a price of outcome o in terms of outcome 0.
func yesPrice(o int, p exchange.Fixed) float64 {
	if o == 1 {
		return 1 - p.Float()
	}
	return p.Float()
}

// bidLike reports whether an order of outcome o on side sd adds to Q_one:
// a BUY of outcome 0 or a SELL of outcome 1.
func bidLike(o int, sd exchange.Side) bool { return (o == 0) == (sd == exchange.Buy) }

// RewardClock tells when reward samples are due: every RewardInterval of
// simulated time, aligned to the clock, starting after the first call.
type RewardClock struct {
	next time.Time
}

// Due returns the first sample time due at or before now and how many are
// due (0: none). The first call starts the clock and takes no sample. When
// several intervals passed without a call, the state did not change in
// between: one score counts for each.
func (c *RewardClock) Due(now time.Time) (at time.Time, n int) {
	if c.next.IsZero() {
		c.next = now.Truncate(RewardInterval).Add(RewardInterval)
		return time.Time{}, 0
	}
	if now.Before(c.next) {
		return time.Time{}, 0
	}
	at = c.next
	n = int(now.Sub(at)/RewardInterval) + 1
	c.next = at.Add(time.Duration(n) * RewardInterval)
	return at, n
}

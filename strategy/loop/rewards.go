package loop

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// rewardRun is one market's liquidity-reward estimate: the share our
// resting orders score against the book (strategy.EstimateRewards, the
// exchange's rule) at each cycle, and the income that share of the
// market's daily rate made since the start, integrated over the time
// between cycles. It is the loop's own estimate: the exchange publishes no
// earnings endpoint (the simulator's is an extension).
type rewardRun struct {
	est    strategy.RewardEstimate
	earned float64 // collateral, since the start
	// shown is earned as the status shows it (rounded to 6 places), when
	// shownOK, made from the earned value shownOf.
	shown   decimal.Decimal
	shownOf float64
	shownOK bool
	at      time.Time
	has     bool // est is from a book with a mid
}

// observeRewards scores the orders that rested since the last cycle (the
// snapshot's Open) against this cycle's books, and adds the income of the
// time since the last observation at the share measured now. Markets that
// pay nothing, or without both books, add nothing.
func (mr *marketRun) observeRewards(now time.Time) {
	rr := &mr.rew
	if !mr.snap.Rewards.MaxSpread.IsPositive() || !mr.hasBook[strategy.Yes] {
		rr.has, rr.at = false, now
		return
	}
	e := strategy.EstimateRewards(&mr.snap, mr.snap.Open)
	if e.Mid == 0 {
		rr.has, rr.at = false, now
		return
	}
	if rr.has && now.After(rr.at) {
		rr.earned += rr.est.DailyRewards * now.Sub(rr.at).Seconds() / exchange.RewardDay
	}
	rr.est, rr.at, rr.has = e, now, true
}

// MarketRewards is one market's liquidity-reward line of the status: the
// loop's estimate (see rewardRun) and the reward-aware model's decision.
type MarketRewards struct {
	Pays bool // the market has a reward program
	// Share is our share of the market's reward score at the last cycle
	// (Q_min / (ours + the book's)), Daily that share of the daily rate.
	Share float64
	Daily float64
	// Earned is the estimated income since the start, in collateral.
	Earned decimal.Decimal
	// Decision is WithRewards' last decision (undecided when the model
	// does not decide).
	Decision strategy.RewardDecision
}

// rewardStatus is the market's line for the status.
func (mr *marketRun) rewardStatus() MarketRewards {
	r := MarketRewards{Pays: mr.m.Rewards.MaxSpread.IsPositive() && mr.m.Rewards.DailyRate.IsPositive(),
		Earned: mr.rew.earnedShown()}
	if mr.rew.has {
		r.Share, r.Daily = mr.rew.est.Share, mr.rew.est.DailyRewards
	}
	if mr.st != nil {
		r.Decision = mr.st.Rewards
	}
	return r
}

// earnedShown is earned in decimal, rounded to 6 places: made again only
// when earned changed (a market that pays nothing shows the same zero
// every cycle).
func (rr *rewardRun) earnedShown() decimal.Decimal {
	if !rr.shownOK || rr.shownOf != rr.earned {
		rr.shown, rr.shownOf, rr.shownOK = decimal.NewFromFloat(rr.earned).Round(6), rr.earned, true
	}
	return rr.shown
}

// RewardTotals sums the markets' reward lines: the estimated income since
// the start, the income per day at the last cycle's shares, and the mean
// share over the paying markets (0 when none pays).
func (s *Status) RewardTotals() (earned decimal.Decimal, daily, share float64) {
	n := 0
	for i := range s.Markets {
		r := &s.Markets[i].Rewards
		earned = earned.Add(r.Earned)
		daily += r.Daily
		if r.Pays {
			share += r.Share
			n++
		}
	}
	if n > 0 {
		share /= float64(n)
	}
	return earned, daily, share
}

package replay

import (
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
)

// sampleRewards takes the liquidity-reward samples due at or before t (one a
// minute, aligned to the clock), scoring the state before t's input. When
// several minutes passed without an event, one score counts for each.
func (r *Replay) sampleRewards(t time.Time) {
	if t.Before(r.nextReward) {
		return
	}
	at := r.nextReward
	n := int(t.Sub(at)/fillmodel.RewardInterval) + 1
	r.nextReward = at.Add(time.Duration(n) * fillmodel.RewardInterval)
	for _, mk := range r.markets {
		if s, ok := r.scoreMarket(mk, n); ok {
			r.acc.OnReward(at, s, n)
		}
	}
}

// scoreMarket scores a market with exchange's rule (fillmodel.ScoreMarket):
// our resting virtual orders against the recorded books, which never hold
// them: the competition is the recorded depth.
func (r *Replay) scoreMarket(mk *replayMarket, n int) (fillmodel.RewardScore, bool) {
	if !mk.terms.Pays() {
		return fillmodel.RewardScore{}, false
	}
	var books [2]*recording.FixedBook
	for o, tok := range mk.toks {
		if tok.resolved {
			return fillmodel.RewardScore{}, false
		}
		books[o] = tok.m.Book()
		r.rewardBuf[o] = tok.m.Resting(r.rewardBuf[o][:0])
	}
	return fillmodel.ScoreMarket(mk.terms, books, r.rewardBuf, n)
}

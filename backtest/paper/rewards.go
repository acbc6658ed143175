package paper

import (
	"strings"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
)

// sampleRewards takes the reward samples due at now (one a minute of the
// venue's clock, the first after the first book read), scoring every
// paying market's virtual orders against the books last read, as the
// backtest does (fillmodel.ScoreMarket); v.mu is held. Minutes without a
// book read count the state as it stood.
func (v *Venue) sampleRewards(now time.Time) {
	_, n := v.rewardClk.Due(now)
	if n == 0 {
		return
	}
	for _, cond := range v.conds {
		toks := v.byCond[strings.ToLower(cond)]
		first := v.tokens[toks[0]]
		if !first.rewards.Pays() {
			continue
		}
		var books [2]*recording.FixedBook
		for o, id := range toks {
			pt := v.tokens[id]
			books[o] = pt.m.Book()
			v.rewardBuf[o] = pt.m.Resting(v.rewardBuf[o][:0])
		}
		s, ok := fillmodel.ScoreMarket(first.rewards, books, v.rewardBuf, n)
		if !ok {
			continue
		}
		v.stats.Reward.Ours += s.Ours
		v.stats.Reward.Total += s.Total
		v.stats.Reward.Earned += s.Earned
		v.stats.RewardSamples += n
	}
}

package replay

import (
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// sampleRewards takes the liquidity-reward samples due at or before t (one a
// minute, aligned to the clock), scoring the state before t's input. When
// several minutes passed without an event, one score counts for each.
func (r *Replay) sampleRewards(t time.Time) {
	if t.Before(r.nextReward) {
		return
	}
	at := r.nextReward
	n := int(t.Sub(at)/time.Minute) + 1
	r.nextReward = at.Add(time.Duration(n) * time.Minute)
	for _, mk := range r.markets {
		var s fillmodel.RewardScore
		var ok bool
		if r.cfg.Scorer != nil {
			s, ok = r.scoreTokens(mk, at)
		} else {
			s, ok = r.scoreMarket(mk, at)
		}
		if ok {
			r.acc.OnReward(at, fillmodel.RewardScore{Ours: s.Ours * float64(n), Total: s.Total * float64(n)}, n)
		}
	}
}

// scoreMarket scores a market with the strategy's reward rules: our Q_min
// against the book's (strategy.EstimateRewards). The recorded book does not
// hold our virtual orders, so nothing is subtracted from it.
func (r *Replay) scoreMarket(mk *replayMarket, at time.Time) (fillmodel.RewardScore, bool) {
	if !mk.m.Rewards.MaxSpread.IsPositive() {
		return fillmodel.RewardScore{}, false
	}
	snap := strategy.Snapshot{ConditionID: mk.m.ConditionID, Tick: mk.m.Tick, MinSize: mk.m.MinSize, Rewards: mk.m.Rewards, Now: at}
	var ours []strategy.OpenOrder
	for o, tok := range mk.toks {
		if tok.resolved {
			return fillmodel.RewardScore{}, false
		}
		b := tok.m.Book()
		snap.Tokens[o] = strategy.TokenBook{TokenID: tok.id, Bids: decimalLevels(b.Bids), Asks: decimalLevels(b.Asks), Updated: at}
		r.rewardBuf = tok.m.Resting(r.rewardBuf[:0])
		for _, os := range r.rewardBuf {
			ours = append(ours, strategy.OpenOrder{ID: os.ID, Outcome: tok.outcome, Side: os.Side,
				Price: os.Price.Decimal(), Size: os.Remaining.Decimal()})
		}
	}
	e := strategy.EstimateRewards(&snap, ours)
	if e.Mid == 0 {
		return fillmodel.RewardScore{}, false
	}
	return fillmodel.RewardScore{Ours: e.QMin, Total: e.QMin + e.BookQMin}, true
}

// scoreTokens scores each token of a market through Config.Scorer
// and sums them.
func (r *Replay) scoreTokens(mk *replayMarket, at time.Time) (fillmodel.RewardScore, bool) {
	maxSpread, _ := exchange.FixedFromDecimal(mk.m.Rewards.MaxSpread.Shift(-2)) // cents to price units
	minSize, _ := exchange.FixedFromDecimal(mk.m.Rewards.MinSize)
	var sum fillmodel.RewardScore
	for _, tok := range mk.toks {
		if tok.resolved {
			return fillmodel.RewardScore{}, false
		}
		r.rewardBuf = tok.m.Resting(r.rewardBuf[:0])
		s := r.cfg.Scorer.Score(fillmodel.RewardQuery{TokenID: tok.id, Time: at, Book: tok.m.Book(), Orders: r.rewardBuf,
			MaxSpread: maxSpread, MinSize: minSize})
		sum.Ours += s.Ours
		sum.Total += s.Total
	}
	return sum, true
}

func decimalLevels(ls []recording.Level) []exchange.PriceLevel {
	out := make([]exchange.PriceLevel, len(ls))
	for i, l := range ls {
		out[i] = exchange.PriceLevel{Price: l.Price.Decimal(), Size: l.Size.Decimal()}
	}
	return out
}

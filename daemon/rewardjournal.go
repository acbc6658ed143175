package daemon

import (
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy/loop"
)

// rewardEvery is how often the loop's reward estimate goes to the journal.
const rewardEvery = time.Minute

// rewardJournal writes the liquidity rewards the loop estimates it earned
// (loop.MarketRewards.Earned, since the start) to the journal, by the hour
// and market (state.AddRewards): what was earned since the last write,
// about once a minute and when the daemon stops, so that mmbot statement
// can report them for any period. A restart starts the loop's estimate
// from zero again; what the last process wrote stays.
type rewardJournal struct {
	store *state.Store
	log   zerolog.Logger
	next  time.Time
	saved map[string]decimal.Decimal // written so far, by market
}

func newRewardJournal(store *state.Store, log zerolog.Logger) *rewardJournal {
	return &rewardJournal{store: store, log: log, saved: map[string]decimal.Decimal{}}
}

// observe writes what st's markets earned since the last write, once
// rewardEvery has passed since it (always when final). A failed write is
// logged and tried again at the next write: what was earned stays due.
func (r *rewardJournal) observe(st *loop.Status, final bool) {
	now := st.Time
	if now.IsZero() {
		now = time.Now()
	}
	if !final && now.Before(r.next) {
		return
	}
	r.next = now.Add(rewardEvery)
	due := map[string]decimal.Decimal{}
	for _, ms := range st.Markets {
		if d := ms.Rewards.Earned.Sub(r.saved[ms.ConditionID]); d.IsPositive() {
			due[ms.ConditionID] = d
		}
	}
	if len(due) == 0 {
		return
	}
	if err := r.store.AddRewards(now, due); err != nil {
		r.log.Error().Err(err).Msg("journal: writing the liquidity rewards earned (tried again in a minute)")
		return
	}
	for m, d := range due {
		r.saved[m] = r.saved[m].Add(d)
	}
}

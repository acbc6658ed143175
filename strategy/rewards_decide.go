package strategy

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// RewardDecision is WithRewards' last decision for one market: whether
// quoting inside the reward band at the minimum size pays, and the
// expectations it weighed, per day in collateral.
type RewardDecision struct {
	Decided bool      // false until the first decision
	At      time.Time // the snapshot time it was made at
	Pays    bool
	// Share is the share of the pool the band quotes would score against
	// the visible book (the book less our own orders); Income is that share
	// of the market's daily rate.
	Share  float64
	Income float64
	// TooLarge is set when a band quote needs more than the risk limits
	// let out (RewardParams.MaxSize, MaxNotional): then it does not pay.
	TooLarge bool
	// Cost is the expected adverse selection: the mean loss per share of
	// the last fills' markouts (0 when they made money) times the shares
	// filled per day at their pace; Fills is how many fills it averaged (0:
	// fewer than RewardParams.MarkoutFills were measured, Cost is 0).
	Cost  float64
	Fills int
}

// String formats the decision for logs and status lines.
func (d RewardDecision) String() string {
	if !d.Decided {
		return "undecided"
	}
	verdict := "pays"
	switch {
	case d.TooLarge:
		verdict = "does not pay (the minimum size is above the order limits)"
	case !d.Pays:
		verdict = "does not pay"
	}
	return fmt.Sprintf("%s: share %.2f%%, income %.4f/day, adverse cost %.4f/day over %d fills",
		verdict, 100*d.Share, d.Income, d.Cost, d.Fills)
}

// decide weighs the band quotes q (already constrained) of one market: the
// reward they would earn against the visible competition, and the adverse
// selection the market's recent fills cost. A market that pays nothing, or
// whose quotes would score nothing, does not pay.
func (r *rewarded) decide(q []Desired, s *Snapshot, st *MarketState) RewardDecision {
	d := RewardDecision{Decided: true, At: s.Now}
	rule, ok := s.RewardRule()
	mid, hasMid := rewardMid(s, st)
	if !ok || !hasMid {
		return d
	}
	var ours exchange.RewardSides
	for i := range q {
		if (r.p.MaxSize > 0 && q[i].Size > r.p.MaxSize+1e-9) || (r.p.MaxNotional > 0 && q[i].Size*q[i].Price > r.p.MaxNotional+1e-9) {
			d.TooLarge = true
		}
		ours.Add(rule, mid, toYes(q[i].Outcome, q[i].Price), q[i].Size, bidLike(q[i].Outcome, q[i].Side))
	}
	e := RewardEstimate{Mid: mid, QOne: ours.One, QTwo: ours.Two, QMin: ours.QMin(mid), BookQMin: bookRewardQMin(s, rule, mid)}
	e.finish(s)
	d.Share, d.Income = e.Share, e.DailyRewards
	if st != nil {
		h, _ := MarkoutHorizonIndex(r.p.MarkoutHorizon)
		perShare, k := st.Adverse.Markouts.Recent(h, r.p.MarkoutFills)
		if k >= r.p.MarkoutFills {
			flow, _ := st.Adverse.Markouts.RecentFlow(h, r.p.MarkoutFills, s.Now)
			d.Fills = k
			d.Cost = max(0, -perShare) * flow * exchange.RewardDay
		}
	}
	d.Pays = !d.TooLarge && d.Income > 0 && d.Income > d.Cost
	return d
}

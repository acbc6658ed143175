package sim

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// RewardInterval is how often the simulator samples the books for the
// liquidity-reward program: once a minute of its clock, as the exchange
// does.
const RewardInterval = time.Minute

// rewards is the simulator's liquidity-reward program: every
// RewardInterval it scores every resting order of every account (the flow's
// makers included) with exchange's rule and shares each paying market's
// pool for the interval pro rata of the accounts' Q_min. It runs under
// Exchange.mu.
type rewards struct {
	next  time.Time
	lines map[rewardKey]*rewardLine
	paid  map[string]int64 // market id → paid in total
	// scratch, reused between samples
	sides map[string]*exchange.RewardSides
	ids   []string
}

type rewardKey struct{ account, market string }

type rewardLine struct {
	earned  int64 // base units of collateral
	samples int   // samples in which the account scored
}

func newRewards(start time.Time) *rewards {
	return &rewards{next: start.Truncate(RewardInterval).Add(RewardInterval), lines: map[rewardKey]*rewardLine{},
		paid: map[string]int64{}, sides: map[string]*exchange.RewardSides{}}
}

// state copies the program's state, sorted; e.mu is held.
func (r *rewards) state() *RewardsState {
	st := &RewardsState{Next: r.next}
	for k, l := range r.lines {
		st.Lines = append(st.Lines, RewardLineState{Wallet: k.account, Market: k.market, Earned: l.earned, Samples: l.samples})
	}
	sort.Slice(st.Lines, func(i, j int) bool {
		a, b := st.Lines[i], st.Lines[j]
		return a.Wallet < b.Wallet || a.Wallet == b.Wallet && a.Market < b.Market
	})
	for m, p := range r.paid {
		st.Paid = append(st.Paid, RewardMarketState{Market: m, Paid: p})
	}
	sort.Slice(st.Paid, func(i, j int) bool { return st.Paid[i].Market < st.Paid[j].Market })
	return st
}

// restore loads a saved state; known says whether a market is in the
// catalog.
func (r *rewards) restore(st *RewardsState, known func(market string) bool) error {
	r.next = st.Next
	for _, l := range st.Lines {
		if !known(l.Market) {
			return fmt.Errorf("rewards of unknown market %s", l.Market)
		}
		if l.Earned < 0 || l.Samples < 0 {
			return fmt.Errorf("rewards of %s in %s: negative %d / %d", l.Wallet, l.Market, l.Earned, l.Samples)
		}
		r.lines[rewardKey{account: strings.ToLower(l.Wallet), market: l.Market}] = &rewardLine{earned: l.Earned, samples: l.Samples}
	}
	for _, p := range st.Paid {
		if !known(p.Market) || p.Paid < 0 {
			return fmt.Errorf("rewards paid by market %s: %d", p.Market, p.Paid)
		}
		r.paid[p.Market] = p.Paid
	}
	return nil
}

// sample takes the samples due at or before now. When several intervals
// passed in one step, the books did not change in between: one score
// counts for each.
func (r *rewards) sample(e *Exchange, now time.Time) {
	if now.Before(r.next) {
		return
	}
	n := int64(now.Sub(r.next)/RewardInterval) + 1
	r.next = r.next.Add(time.Duration(n) * RewardInterval)
	for _, s := range e.markets {
		if !s.closed {
			r.scoreMarket(e, s, n)
		}
	}
}

// ruleOf returns a market's scoring rule and its pool per interval, and
// false when it pays nothing.
func ruleOf(s *mstate) (exchange.RewardRule, exchange.Fixed, bool) {
	t := &s.m.Rewards
	if !t.MaxSpread.IsPositive() || !t.DailyRate.IsPositive() {
		return exchange.RewardRule{}, 0, false
	}
	v, err1 := exchange.FixedFromDecimal(t.MaxSpread.Shift(-2)) // cents to price units
	minSize, err2 := exchange.FixedRound(t.MinSize, exchange.RoundTrunc)
	rate, err3 := exchange.FixedRound(t.DailyRate, exchange.RoundTrunc)
	if err1 != nil || err2 != nil || err3 != nil || v <= 0 {
		return exchange.RewardRule{}, 0, false
	}
	return exchange.RewardRule{MaxSpread: v, MinSize: minSize}, exchange.RewardPool(rate, RewardInterval.Seconds()), true
}

// scoreMarket scores one market's resting orders against the mid of its
// first token's book and pays n intervals' pools.
func (r *rewards) scoreMarket(e *Exchange, s *mstate, n int64) {
	rule, pool, ok := ruleOf(s)
	if !ok {
		return
	}
	bid, ask, err := e.eng.BestBidAsk(s.m.TokenIDs[0])
	if err != nil {
		return
	}
	mid, ok := exchange.RewardMid(exchange.Fixed(bid), exchange.Fixed(ask))
	if !ok {
		return
	}
	clear(r.sides)
	r.ids = r.ids[:0]
	_ = e.eng.Resting(s.id, func(o *engine.Order, price0 int64, isBid bool) {
		q := r.sides[o.Account]
		if q == nil {
			q = &exchange.RewardSides{}
			r.sides[o.Account] = q
			r.ids = append(r.ids, o.Account)
		}
		q.Add(rule, mid, exchange.Fixed(price0).Float(), exchange.Fixed(o.Remaining()).Float(), isBid)
	})
	sort.Strings(r.ids) // deterministic rounding
	scores := make([]float64, len(r.ids))
	for i, id := range r.ids {
		scores[i] = r.sides[id].QMin(mid)
	}
	for i, amt := range exchange.SplitReward(pool*exchange.Fixed(n), scores) {
		if scores[i] <= 0 {
			continue
		}
		k := rewardKey{r.ids[i], s.id}
		l := r.lines[k]
		if l == nil {
			l = &rewardLine{}
			r.lines[k] = l
		}
		l.earned += int64(amt)
		l.samples += int(n)
		r.paid[s.id] += int64(amt)
	}
}

// RewardEarning is what one account earned in one market.
type RewardEarning struct {
	ConditionID string          `json:"condition_id"`
	Earned      decimal.Decimal `json:"earned"` // collateral
	// Share is the account's part of everything the market paid so far.
	Share   float64 `json:"share"`
	Samples int     `json:"samples"` // samples in which the account scored
}

// RewardReport is an account's liquidity-reward earnings: the body of GET
// /clob/rewards/earnings, the simulator's extension (docs/simulator.md).
type RewardReport struct {
	Wallet  string          `json:"wallet"`
	Total   decimal.Decimal `json:"total"`
	Markets []RewardEarning `json:"markets"` // markets it earned in, by condition id
}

// RewardEarnings returns what a wallet (any account's, the flow's makers'
// included) earned so far, per market. The simulator keeps the earnings
// aside: it does not credit them to the balance.
func (e *Exchange) RewardEarnings(wallet string) RewardReport {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rewardReportLocked(strings.ToLower(wallet))
}

func (e *Exchange) rewardReportLocked(id string) RewardReport {
	out := RewardReport{Wallet: id, Total: decimal.Zero, Markets: []RewardEarning{}}
	var total int64
	for k, l := range e.rewards.lines {
		if k.account != id {
			continue
		}
		s := e.byCond[k.market]
		share := 0.0
		if p := e.rewards.paid[k.market]; p > 0 {
			share = float64(l.earned) / float64(p)
		}
		out.Markets = append(out.Markets, RewardEarning{ConditionID: s.m.ConditionID, Earned: exchange.Fixed(l.earned).Decimal(),
			Share: share, Samples: l.samples})
		total += l.earned
	}
	sort.Slice(out.Markets, func(i, j int) bool { return out.Markets[i].ConditionID < out.Markets[j].ConditionID })
	out.Total = exchange.Fixed(total).Decimal()
	return out
}

// RewardsPaid returns what a market paid in total so far (every account).
func (e *Exchange) RewardsPaid(conditionID string) decimal.Decimal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return exchange.Fixed(e.rewards.paid[strings.ToLower(conditionID)]).Decimal()
}

// RewardWallets returns the wallets of every account that earned
// rewards so far (the flow's makers included), sorted.
func (e *Exchange) RewardWallets() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for k := range e.rewards.lines {
		if !seen[k.account] {
			seen[k.account] = true
			out = append(out, k.account)
		}
	}
	sort.Strings(out)
	return out
}

// GET /clob/rewards/earnings (authenticated, the simulator's extension):
// the authenticated account's RewardReport.
func (e *Exchange) handleRewardEarnings(w http.ResponseWriter, r *http.Request) {
	a, _, ok := e.readAuthed(w, r)
	if !ok {
		return
	}
	e.mu.Lock()
	out := e.rewardReportLocked(a.id())
	out.Wallet = a.wallet
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

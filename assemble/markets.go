package assemble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// SelectMarkets reads the order-book market list and returns the markets to
// quote: the configured condition ids and slugs (each must exist and be
// tradable), then, with markets.auto.enabled, the first markets by
// condition id that pass the rules, up to max_markets in all. A selection
// the list cannot satisfy is a permanent error (see startRetryable). A
// market whose terms are invalid (exchange.ValidateMarket) is left out and
// handed to refused, when not nil.
func SelectMarkets(ctx context.Context, c *exchange.Client, mc *configs.Markets, refused func(conditionID string, err error)) ([]strategy.Market, error) {
	var all []exchange.Market
	for m, err := range c.AllMarkets(ctx) {
		if err != nil {
			return nil, fmt.Errorf("list markets: %w", err)
		}
		all = append(all, m)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ConditionID < all[j].ConditionID })
	var out []strategy.Market
	seen := map[string]bool{}
	add := func(m *exchange.Market) error {
		if seen[m.ConditionID] {
			return nil
		}
		sm, err := toStrategyMarket(m)
		if errors.Is(err, exchange.ErrInvalidData) {
			seen[m.ConditionID] = true // refused once per selection
			if refused != nil {
				refused(m.ConditionID, err)
			}
			return nil
		}
		if err != nil {
			return err
		}
		seen[m.ConditionID] = true
		out = append(out, sm)
		return nil
	}
	for _, want := range mc.ConditionIDs {
		i := slices.IndexFunc(all, func(m exchange.Market) bool { return strings.EqualFold(m.ConditionID, want) })
		if i < 0 {
			return nil, Permanent(fmt.Errorf("markets.condition_ids: %s is not listed by the exchange", want))
		}
		if err := tradable(&all[i]); err != nil {
			return nil, Permanent(fmt.Errorf("markets.condition_ids: %s: %w", want, err))
		}
		if err := add(&all[i]); err != nil {
			return nil, err
		}
	}
	for _, want := range mc.Slugs {
		i := slices.IndexFunc(all, func(m exchange.Market) bool { return m.MarketSlug == want })
		if i < 0 {
			return nil, Permanent(fmt.Errorf("markets.slugs: %q is not listed by the exchange", want))
		}
		if err := tradable(&all[i]); err != nil {
			return nil, Permanent(fmt.Errorf("markets.slugs: %s: %w", want, err))
		}
		if err := add(&all[i]); err != nil {
			return nil, err
		}
	}
	if a := &mc.Auto; a.Enabled {
		for i := range all {
			if len(out) >= a.MaxMarkets {
				break
			}
			m := &all[i]
			if seen[m.ConditionID] || !autoPick(m, a) {
				continue
			}
			if a.MinLiquidity.IsPositive() {
				ok, err := liquidEnough(ctx, c, m, a.MinLiquidity)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			if err := add(m); err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, Permanent(fmt.Errorf("no market selected: set markets.condition_ids, markets.slugs or markets.auto.enabled (and check its rules)"))
	}
	return out, nil
}

func tradable(m *exchange.Market) error {
	switch {
	case m.Closed:
		return fmt.Errorf("market is closed")
	case !m.Active:
		return fmt.Errorf("market is not active")
	case !m.AcceptingOrders:
		return fmt.Errorf("market is not accepting orders")
	case len(m.Tokens) != 2:
		return fmt.Errorf("market has %d outcome tokens; only binary markets are quoted", len(m.Tokens))
	}
	return nil
}

func autoPick(m *exchange.Market, a *configs.MarketsAuto) bool {
	if m.Closed || !m.Active || len(m.Tokens) != 2 || (a.AcceptingOrdersOnly && !m.AcceptingOrders) {
		return false
	}
	if a.RequireRewards && (!m.Rewards.MaxSpread.Decimal.IsPositive() || !m.Rewards.DailyRate().IsPositive()) {
		return false
	}
	for _, t := range a.Tags {
		if !slices.Contains(m.Tags, t) {
			return false
		}
	}
	return true
}

// liquidEnough reads both books and compares the collateral resting within
// the top five levels of each side with min.
func liquidEnough(ctx context.Context, c *exchange.Client, m *exchange.Market, min decimal.Decimal) (bool, error) {
	books, err := c.Books(ctx, []string{m.Tokens[0].TokenID, m.Tokens[1].TokenID})
	if err != nil {
		return false, fmt.Errorf("books of %s: %w", m.ConditionID, err)
	}
	total := decimal.Zero
	for i := range books {
		books[i].Normalize()
		for _, side := range [][]exchange.PriceLevel{books[i].Bids, books[i].Asks} {
			for j := 0; j < len(side) && j < 5; j++ {
				total = total.Add(side[j].Price.Mul(side[j].Size))
			}
		}
	}
	return total.GreaterThanOrEqual(min), nil
}

// toStrategyMarket takes a listed market's trading terms. The first token is
// the YES outcome unless the outcomes are named otherwise.
func toStrategyMarket(m *exchange.Market) (strategy.Market, error) {
	if len(m.Tokens) != 2 {
		return strategy.Market{}, fmt.Errorf("market %s has %d tokens", m.ConditionID, len(m.Tokens))
	}
	yes, no := m.Tokens[0], m.Tokens[1]
	if strings.EqualFold(yes.Outcome, "no") && strings.EqualFold(no.Outcome, "yes") {
		yes, no = no, yes
	}
	if err := exchange.ValidateMarket(m); err != nil {
		return strategy.Market{}, err
	}
	tick := m.MinimumTickSize.Decimal
	sm := strategy.Market{ConditionID: m.ConditionID, Slug: m.MarketSlug, Question: m.Question, TokenIDs: [2]string{yes.TokenID, no.TokenID},
		Tick: tick, MinSize: m.MinimumOrderSize.Decimal, NegRisk: m.NegRisk,
		Rewards: strategy.RewardTerms{MinSize: m.Rewards.MinSize.Decimal, MaxSpread: m.Rewards.MaxSpread.Decimal, DailyRate: m.Rewards.DailyRate()}}
	if d := m.SecondsDelay.Decimal; d.IsPositive() {
		// seconds_delay: how long a placement may wait before it reaches
		// the book; the in-flight grace of the market's orders adds it
		sm.PlacementDelay = time.Duration(d.Mul(decimal.NewFromInt(int64(time.Second))).IntPart())
	}
	if t, ok := exchange.ParseDate(m.EndDateISO); ok {
		sm.EndDate = t
	} else if m.EndDateISO != "" {
		if t, err := time.Parse(time.RFC3339, m.EndDateISO); err == nil {
			sm.EndDate = t
		}
	}
	return sm, nil
}

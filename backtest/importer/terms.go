package importer

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/strategy"
)

// Terms are a market's trading terms, which the market channel does not
// carry (the book message has no minimum order size, and not always a tick
// size). Zero fields are unknown.
type Terms struct {
	Tick    decimal.Decimal
	MinSize decimal.Decimal
	EndDate time.Time
	Rewards strategy.RewardTerms
	// SecondsDelay is the market's matching delay (the catalog's
	// seconds_delay) and NegRisk its neg-risk flag.
	SecondsDelay int64
	NegRisk      bool
}

// IsZero reports whether no term is known.
func (t Terms) IsZero() bool {
	return t.Tick.IsZero() && t.MinSize.IsZero() && t.EndDate.IsZero() &&
		t.Rewards.MaxSpread.IsZero() && t.Rewards.MinSize.IsZero() && t.Rewards.DailyRate.IsZero() &&
		t.SecondsDelay == 0 && !t.NegRisk
}

// over returns t with every non-zero field of o in place of t's.
func (t Terms) over(o Terms) Terms {
	pick := func(a, b decimal.Decimal) decimal.Decimal {
		if !b.IsZero() {
			return b
		}
		return a
	}
	t.Tick = pick(t.Tick, o.Tick)
	t.MinSize = pick(t.MinSize, o.MinSize)
	if !o.EndDate.IsZero() {
		t.EndDate = o.EndDate
	}
	t.Rewards.MaxSpread = pick(t.Rewards.MaxSpread, o.Rewards.MaxSpread)
	t.Rewards.MinSize = pick(t.Rewards.MinSize, o.Rewards.MinSize)
	t.Rewards.DailyRate = pick(t.Rewards.DailyRate, o.Rewards.DailyRate)
	if o.SecondsDelay != 0 {
		t.SecondsDelay = o.SecondsDelay
	}
	t.NegRisk = t.NegRisk || o.NegRisk
	return t
}

// Market is a market the input is known to hold.
type Market struct {
	ConditionID string
	// Tokens are the outcome tokens in outcome order, YES first (a binary
	// market has two).
	Tokens []string
	Terms  Terms
	// Question and Slug name the market for people (the catalog's
	// question and market_slug); they go into its tokens' first metas.
	Question, Slug string
}

// knownMarkets indexes Options.Markets.
type knownMarkets struct {
	byCond  map[string]*Market // by lower-case condition id
	byToken map[string]*Market
}

func newKnownMarkets(ms []Market) (knownMarkets, error) {
	k := knownMarkets{byCond: map[string]*Market{}, byToken: map[string]*Market{}}
	for i := range ms {
		m := &ms[i]
		key := strings.ToLower(m.ConditionID)
		if key == "" {
			return k, fmt.Errorf("market %d: no condition id", i+1)
		}
		if _, dup := k.byCond[key]; dup {
			return k, fmt.Errorf("market %s listed twice", m.ConditionID)
		}
		k.byCond[key] = m
		for _, tok := range m.Tokens {
			if tok == "" {
				return k, fmt.Errorf("market %s: an empty token id", m.ConditionID)
			}
			if o, dup := k.byToken[tok]; dup {
				return k, fmt.Errorf("token %s in markets %s and %s", tok, o.ConditionID, m.ConditionID)
			}
			k.byToken[tok] = m
		}
	}
	return k, nil
}

// market returns the known market of a token or of a condition id.
func (k *knownMarkets) market(token, cond string) *Market {
	if m := k.byToken[token]; m != nil {
		return m
	}
	if cond != "" {
		return k.byCond[strings.ToLower(cond)]
	}
	return nil
}

// complement returns the other outcome of token in a known binary market.
func (k *knownMarkets) complement(token string) (string, *Market, bool) {
	m := k.byToken[token]
	if m == nil || len(m.Tokens) != 2 {
		return "", nil, false
	}
	if m.Tokens[0] == token {
		return m.Tokens[1], m, true
	}
	return m.Tokens[0], m, true
}

// terms returns the terms of token's market: the known market's, under
// the options' (flags win).
func (im *importer) terms(token, cond string) Terms {
	var t Terms
	if m := im.known.market(token, cond); m != nil {
		t = m.Terms
	}
	return t.over(im.opts.Terms)
}

// marketOf returns the condition id of token: the message's, else the
// known market's, else the one an earlier message gave.
func (im *importer) marketOf(token, msgMarket string) string {
	if msgMarket != "" {
		return msgMarket
	}
	if m := im.known.byToken[token]; m != nil {
		return m.ConditionID
	}
	if lb := im.books[token]; lb != nil {
		return lb.market
	}
	return ""
}

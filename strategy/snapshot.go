package strategy

import (
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// Outcome indexes a market's two outcome tokens.
type Outcome int

// The two outcomes. The values match package risk's Yes and No.
const (
	Yes Outcome = 0
	No  Outcome = 1
)

// Other returns the complementary outcome.
func (o Outcome) Other() Outcome { return 1 - o }

// Valid reports whether o is Yes or No.
func (o Outcome) Valid() bool { return o == Yes || o == No }

// String returns "YES" or "NO".
func (o Outcome) String() string {
	switch o {
	case Yes:
		return "YES"
	case No:
		return "NO"
	}
	return "outcome?"
}

// TokenBook is the top of one outcome token's book, best level first on both
// sides (exchange.OrderBook.Normalize gives that order).
type TokenBook struct {
	TokenID string
	Bids    []exchange.PriceLevel // best (highest) first
	Asks    []exchange.PriceLevel // best (lowest) first
	Updated time.Time             // the exchange's timestamp of the book
}

// TradePrint is one trade on the market's tape (ours included).
type TradePrint struct {
	Outcome Outcome
	Side    exchange.Side // the taker's side
	Price   decimal.Decimal
	Size    decimal.Decimal
	Time    time.Time
}

// RewardTerms are a market's liquidity-reward terms as the exchange publishes
// them. MaxSpread is in cents (3 means 0.03 of price) and MinSize in shares,
// as on the live exchange; DailyRate is the reward pool per day in
// collateral. A zero MaxSpread means the market pays no rewards.
type RewardTerms struct {
	MinSize   decimal.Decimal
	MaxSpread decimal.Decimal
	DailyRate decimal.Decimal
}

// OpenOrder is one of our live orders in the market.
type OpenOrder struct {
	ID      string
	Outcome Outcome
	Side    exchange.Side
	Price   decimal.Decimal
	Size    decimal.Decimal // remaining
}

// Snapshot is everything a model and the planner know about one market at
// one instant.
type Snapshot struct {
	ConditionID string
	Tokens      [2]TokenBook // indexed by Outcome
	Tick        decimal.Decimal
	MinSize     decimal.Decimal // minimum order size in shares
	NegRisk     bool
	Rewards     RewardTerms
	EndDate     time.Time          // zero when the market has none
	Trades      []TradePrint       // oldest first
	Position    [2]decimal.Decimal // our shares per outcome
	// Locked is, per outcome, the part of Position that cannot be offered
	// now: shares bought in trades the exchange has not settled yet, and
	// shares under SELLs in flight that Open does not show (an intent whose
	// answer never came, within its grace). Models sell only the rest.
	Locked   [2]decimal.Decimal
	Open     []OpenOrder
	LastFill [2][2]time.Time // our last fill per outcome and side (0 BUY, 1 SELL); zero when none
	Now      time.Time
}

// TimeToEnd returns the time left until the end date, and false when the
// market has no end date. It is never negative.
func (s *Snapshot) TimeToEnd() (time.Duration, bool) {
	if s.EndDate.IsZero() {
		return 0, false
	}
	return max(s.EndDate.Sub(s.Now), 0), true
}

// NetYes returns our net position in YES shares: YES held minus NO held (a NO
// share is a short YES share).
func (s *Snapshot) NetYes() float64 {
	return s.Position[Yes].InexactFloat64() - s.Position[No].InexactFloat64()
}

// bidLike reports whether an order on o with side sd is a bid in YES space.
func bidLike(o Outcome, sd exchange.Side) bool { return (o == Yes) == (sd == exchange.Buy) }

// toYes maps a price of outcome o's token to YES space.
func toYes(o Outcome, p float64) float64 {
	if o == No {
		return 1 - p
	}
	return p
}

// Sellable returns the shares of outcome o that may be offered: the
// position less what is Locked, never below zero.
func (s *Snapshot) Sellable(o Outcome) decimal.Decimal {
	if !o.Valid() {
		return decimal.Zero
	}
	if s.Locked[o].IsZero() && !s.Position[o].IsNegative() {
		return s.Position[o] // nothing locked: no subtraction to allocate
	}
	v := s.Position[o].Sub(s.Locked[o])
	if v.IsNegative() {
		return decimal.Zero
	}
	return v
}

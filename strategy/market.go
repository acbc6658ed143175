package strategy

import (
	"time"

	"github.com/shopspring/decimal"
)

// Market is a quoted market's static terms, as read from the exchange's
// market list when the loop starts (and re-read when a book says the tick
// size changed).
type Market struct {
	ConditionID string
	Slug        string
	Question    string
	TokenIDs    [2]string // YES, NO
	Tick        decimal.Decimal
	MinSize     decimal.Decimal
	NegRisk     bool
	Rewards     RewardTerms
	EndDate     time.Time
	// PlacementDelay is the exchange's seconds_delay for the market: how
	// long a placement may wait before it reaches the book ("delayed").
	PlacementDelay time.Duration
}

// Outcome returns which outcome tokenID is in m, and false when it is neither.
func (m *Market) Outcome(tokenID string) (Outcome, bool) {
	switch tokenID {
	case m.TokenIDs[Yes]:
		return Yes, true
	case m.TokenIDs[No]:
		return No, true
	}
	return Yes, false
}

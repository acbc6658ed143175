package fillmodel

import (
	"fmt"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// MatchTradeFrom converts a recorded trade for the Matcher.
func MatchTradeFrom(t *recording.Trade) (MatchTrade, error) {
	p, err := exchange.FixedFromDecimal(t.Price)
	if err != nil {
		return MatchTrade{}, fmt.Errorf("trade %s price: %w", t.TokenID, err)
	}
	s, err := exchange.FixedFromDecimal(t.Size)
	if err != nil {
		return MatchTrade{}, fmt.Errorf("trade %s size: %w", t.TokenID, err)
	}
	return MatchTrade{Price: p, Size: s, TakerSide: t.TakerSide}, nil
}

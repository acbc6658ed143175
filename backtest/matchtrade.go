package backtest

import "fmt"

// MatchTradeFrom converts a recorded trade for the Matcher.
func MatchTradeFrom(t *Trade) (MatchTrade, error) {
	p, err := FixedFromDecimal(t.Price)
	if err != nil {
		return MatchTrade{}, fmt.Errorf("trade %s price: %w", t.TokenID, err)
	}
	s, err := FixedFromDecimal(t.Size)
	if err != nil {
		return MatchTrade{}, fmt.Errorf("trade %s size: %w", t.TokenID, err)
	}
	return MatchTrade{Price: p, Size: s, TakerSide: t.TakerSide}, nil
}

package sim

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// ChangeTick changes a market's tick size now, as the exchange's
// tick_size_change does: placements must be on the new grid from now on
// (resting orders stay), the background maker quotes on it, and GET
// /markets shows it (Catalog, the generated catalog, keeps the initial
// tick). The exchange announces the change per token: the
// books of tokens (token ids of the market) report the new tick; the
// market's other token goes on reporting the old one until a later
// ChangeTick names it — a capture, or a client, that saw the change of one
// token only. With no tokens, both books report the new tick.
func (e *Exchange) ChangeTick(conditionID string, tick decimal.Decimal, tokens ...string) error {
	if !exchange.ValidTick(tick) {
		return fmt.Errorf("sim: change tick of %s: tick size %s is not one of 0.1, 0.01, 0.001, 0.0001", conditionID, tick)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.byCond[strings.ToLower(conditionID)]
	if !ok {
		return fmt.Errorf("sim: change tick of %s: %w", conditionID, engine.ErrUnknownMarket)
	}
	named := [2]bool{len(tokens) == 0, len(tokens) == 0}
	for _, tok := range tokens {
		switch tok {
		case s.m.TokenIDs[0]:
			named[0] = true
		case s.m.TokenIDs[1]:
			named[1] = true
		default:
			return fmt.Errorf("sim: change tick of %s: token %s is not one of the market's: %w", conditionID, tok, engine.ErrUnknownToken)
		}
	}
	fx, err := exchange.FixedFromDecimal(tick)
	if err != nil {
		return fmt.Errorf("sim: change tick of %s: %w", conditionID, err)
	}
	if err := e.eng.SetTick(s.id, int64(fx)); err != nil {
		return fmt.Errorf("sim: change tick of %s: %w", conditionID, err)
	}
	for o := range named {
		if named[o] {
			s.bookTick[o] = tick
		} else if s.bookTick[o].IsZero() {
			s.bookTick[o] = s.tickSize // the old tick, still reported
		}
	}
	s.tick, s.tickSize = int64(fx), tick
	e.touch(s.id)
	return nil
}

// reportedTick is the tick size the book of outcome o reports.
func (s *mstate) reportedTick(o int) decimal.Decimal {
	if t := s.bookTick[o]; !t.IsZero() {
		return t
	}
	return s.tickSize
}

// outcomeOf is the outcome index of tok in s (0 unless it is the second).
func outcomeOf(s *mstate, tok string) int {
	if s.m.TokenIDs[1] == tok {
		return 1
	}
	return 0
}

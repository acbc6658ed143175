package assemble

import (
	"fmt"

	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Settlement (issue 20 point 6): the journal's trades not yet final, and
// the batch's trade statuses, a FAILED one's fill taken back.

var _ loop.SettlementJournal = Journal{}

// applyTrades records the batch's trade statuses after its fills: a FAILED
// trade's fill is taken back in the same transaction (state.Tx.PutTrade).
func applyTrades(tx *state.Tx, b *loop.Batch) error {
	for _, t := range b.Trades {
		_, _, err := tx.PutTrade(state.Trade{ID: t.TradeID, OrderHash: t.OrderHash, ConditionID: t.ConditionID, TokenID: t.TokenID,
			Side: t.Side, Price: t.Price, Size: t.Size, Status: t.Status, MatchedAt: t.MatchedAt, UpdatedAt: b.Now})
		if err != nil {
			return fmt.Errorf("trade %s: %w", t.Key(), err)
		}
	}
	return nil
}

// OpenTrades implements loop.SettlementJournal.
func (j Journal) OpenTrades() ([]loop.TradeUpdate, error) {
	ts, err := j.Store.OpenTrades()
	if err != nil {
		return nil, err
	}
	out := make([]loop.TradeUpdate, 0, len(ts))
	for _, t := range ts {
		tu := loop.TradeUpdate{TradeID: t.ID, OrderHash: t.OrderHash, ConditionID: t.ConditionID, TokenID: t.TokenID,
			Side: t.Side, Price: t.Price, Size: t.Size, Status: t.Status, MatchedAt: t.MatchedAt}
		if o, err := j.Store.Order(t.OrderHash); err == nil {
			tu.Outcome = strategy.Outcome(o.Outcome)
		}
		out = append(out, tu)
	}
	return out, nil
}

// TradeStatus implements loop.SettlementJournal.
func (j Journal) TradeStatus(tradeID, orderHash string) (status string, found bool, err error) {
	err = j.Store.View(func(tx *state.Tx) error {
		t, ok, err := tx.Trade(tradeID, orderHash)
		status, found = t.Status, ok
		return err
	})
	return status, found, err
}

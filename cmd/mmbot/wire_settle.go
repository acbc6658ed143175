package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Settlement glue (issue 20 point 6): the builder history's trade statuses,
// the reads of trades not yet final by id, and the journal's trades.

var (
	_ loop.TradeRereader     = builderHistory{}
	_ loop.SettlementJournal = journal{}
)

// ownTrades turns one builder trade into the account's trades: a TAKER
// trade names our order as its taker order, a trade's maker orders may name
// ours; each carries the trade's settlement status.
func (h builderHistory) ownTrades(t *exchange.BuilderTrade, out []loop.OwnTrade) []loop.OwnTrade {
	at, _ := exchange.ParseDate(t.MatchTime)
	status := strings.ToUpper(t.Status)
	if strings.EqualFold(t.MakerAddress, h.maker) && strings.EqualFold(t.Type, "TAKER") && t.TakerOrderID != "" {
		out = append(out, loop.OwnTrade{ID: t.ID, OrderID: t.TakerOrderID, Size: t.Size, Time: at, Status: status})
	}
	for _, mo := range t.MakerOrders {
		if strings.EqualFold(mo.MakerAddress, h.maker) && mo.OrderID != "" {
			out = append(out, loop.OwnTrade{ID: t.ID, OrderID: mo.OrderID, Size: mo.MatchedAmount, Time: at, Status: status})
		}
	}
	return out
}

// TradesByID implements loop.TradeRereader: GET /builder/trades?id=… for
// each id, the account's part of it.
func (h builderHistory) TradesByID(ctx context.Context, ids []string) ([]loop.OwnTrade, error) {
	var out []loop.OwnTrade
	for _, id := range ids {
		for t, err := range h.c.AllBuilderTrades(ctx, exchange.BuilderTradesParams{ID: id, MakerAddress: h.maker}) {
			if err != nil {
				return out, err
			}
			out = h.ownTrades(&t, out)
		}
	}
	return out, nil
}

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
func (j journal) OpenTrades() ([]loop.TradeUpdate, error) {
	ts, err := j.st.OpenTrades()
	if err != nil {
		return nil, err
	}
	out := make([]loop.TradeUpdate, 0, len(ts))
	for _, t := range ts {
		tu := loop.TradeUpdate{TradeID: t.ID, OrderHash: t.OrderHash, ConditionID: t.ConditionID, TokenID: t.TokenID,
			Side: t.Side, Price: t.Price, Size: t.Size, Status: t.Status, MatchedAt: t.MatchedAt}
		if o, err := j.st.Order(t.OrderHash); err == nil {
			tu.Outcome = strategy.Outcome(o.Outcome)
		}
		out = append(out, tu)
	}
	return out, nil
}

// TradeStatus implements loop.SettlementJournal.
func (j journal) TradeStatus(tradeID, orderHash string) (status string, found bool, err error) {
	err = j.st.View(func(tx *state.Tx) error {
		t, ok, err := tx.Trade(tradeID, orderHash)
		status, found = t.Status, ok
		return err
	})
	return status, found, err
}

// The crash-point wrapper (a test hook) passes the settlement part on.

func (j *crashJournal) OpenTrades() ([]loop.TradeUpdate, error) {
	if sj, ok := j.Journal.(loop.SettlementJournal); ok {
		return sj.OpenTrades()
	}
	return nil, nil
}

func (j *crashJournal) TradeStatus(tradeID, orderHash string) (string, bool, error) {
	if sj, ok := j.Journal.(loop.SettlementJournal); ok {
		return sj.TradeStatus(tradeID, orderHash)
	}
	return "", false, nil
}

package daemon

import (
	"context"
	"strings"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Settlement (issue 20 point 6): the builder history's trade statuses and
// the reads of trades not yet final by id.

var _ loop.TradeRereader = builderHistory{}

// ownTrades turns one builder trade into the account's trades: a TAKER
// trade names our order as its taker order, a trade's maker orders may name
// ours; each carries the trade's settlement status.
func (h builderHistory) ownTrades(t *exchange.BuilderTrade, out []loop.OwnTrade) []loop.OwnTrade {
	at, _ := exchange.ParseDate(t.MatchTime)
	status := strings.ToUpper(t.Status)
	if strings.EqualFold(t.MakerAddress, h.maker) && strings.EqualFold(t.Type, exchange.RoleTaker) && t.TakerOrderID != "" {
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

package daemon

import (
	"context"
	"strings"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// builderFinder finds the account's orders in the builder-trade history
// (GET /builder/trades?maker_address=...): the only place the service
// interface names order ids by account. It sees orders that have traded.
type builderFinder struct {
	c     *exchange.Client
	maker string
	max   int // trades read at most
}

var _ loop.OrderFinder = builderFinder{}

func (f builderFinder) FindOrders(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	var ids []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	n := 0
	for t, err := range f.c.AllBuilderTrades(ctx, exchange.BuilderTradesParams{MakerAddress: f.maker}) {
		if err != nil {
			return ids, err
		}
		if strings.EqualFold(t.MakerAddress, f.maker) {
			add(t.TakerOrderID)
		}
		for _, mo := range t.MakerOrders {
			if strings.EqualFold(mo.MakerAddress, f.maker) {
				add(mo.OrderID)
			}
		}
		if n++; n >= f.max {
			break
		}
	}
	return ids, nil
}

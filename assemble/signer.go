package assemble

import (
	"runtime"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// OrderSigner adapts the signer to the loop's OrderSigner.
type OrderSigner struct{ Signer *signer.Signer }

var (
	_ loop.OrderSigner      = OrderSigner{}
	_ loop.ConcurrentSigner = OrderSigner{}
)

// SignWorkers implements loop.ConcurrentSigner: the signer is safe for
// concurrent use and its salts are random, so a cycle's orders are signed
// on as many goroutines as Go runs at once.
func (o OrderSigner) SignWorkers() int { return runtime.GOMAXPROCS(0) }

// SignOrder signs ord for market m as an order of type t.
func (o OrderSigner) SignOrder(m *strategy.Market, ord *strategy.Order, t exchange.OrderType) (exchange.PlacementItem, string, error) {
	so, err := o.Signer.Sign(signer.OrderRequest{TokenID: ord.TokenID, ConditionID: m.ConditionID, Side: ord.Side, Price: ord.Price,
		Size: ord.Size, TickSize: m.Tick, MinSize: m.MinSize, NegRisk: m.NegRisk, OrderType: t})
	if err != nil {
		return exchange.PlacementItem{}, "", err
	}
	return so.Item, so.Hash, nil
}

package loop

import (
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// locked returns, per outcome, the shares of a market's position that the
// planner may not offer (strategy.Snapshot.Locked): those under SELL
// intents in flight (journaled before this cycle, their answer never came,
// their grace not over: the exchange may take them any moment, and they are
// not the planner's to see or cancel).
func (l *Loop) locked(inflight []*liveOrder) [2]decimal.Decimal {
	var out [2]decimal.Decimal
	for _, lo := range inflight {
		if lo.Side == exchange.Sell && lo.Outcome.Valid() {
			out[lo.Outcome] = out[lo.Outcome].Add(remaining(lo))
		}
	}
	return out
}

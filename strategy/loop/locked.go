package loop

import (
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// locked returns, per outcome, the shares of a market's position that the
// planner may not offer (strategy.Snapshot.Locked): those under SELL
// intents in flight (journaled before this cycle, their answer never came,
// their grace not over: the exchange may take them any moment, and they are
// not the planner's to see or cancel), and those bought in trades the
// exchange has not settled yet (settle.go's unsettledBuys).
func (l *Loop) locked(mr *marketRun, inflight []*liveOrder, unsettled map[string]decimal.Decimal) [2]decimal.Decimal {
	out := [2]decimal.Decimal{unsettled[mr.m.TokenIDs[0]], unsettled[mr.m.TokenIDs[1]]}
	for _, lo := range inflight {
		if lo.Side == exchange.Sell && lo.Outcome.Valid() {
			out[lo.Outcome] = out[lo.Outcome].Add(remaining(lo))
		}
	}
	return out
}

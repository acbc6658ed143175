package sim

import (
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// OrderMatch is what the exchange holds of one order placed over HTTP.
type OrderMatch struct {
	TokenID string
	Side    exchange.Side
	Matched decimal.Decimal // shares matched so far
	Live    bool
}

// MatchedOrders returns every order the account with the given API key
// placed over HTTP, by id (the order hash), with its size matched: what a
// crash test needs to tell a fill the journal has not read yet from one it
// lost. Nil for an unknown key.
func (e *Exchange) MatchedOrders(apiKey string) map[string]OrderMatch {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.accts.byKey[apiKey]; !ok {
		return nil
	}
	out := map[string]OrderMatch{}
	for id, rec := range e.orders {
		if rec.owner != apiKey {
			continue
		}
		o := rec.o
		out[id] = OrderMatch{TokenID: o.Token, Side: side(o.Side), Matched: exchange.Fixed(o.Filled).Decimal(), Live: orderStatus(o) == exchange.StatusLive}
	}
	return out
}

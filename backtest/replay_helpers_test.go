package backtest

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// bookAt is a book event of token at t (ms after t0) from "price:size"
// levels.
func bookAt(tb testing.TB, at int, token string, bids, asks []string) Event {
	tb.Helper()
	return BookEvent(&Book{Stamp: Stamp{Exchange: ms(at)}, TokenID: token, Market: testCond,
		Bids: lv(tb, bids...), Asks: lv(tb, asks...), TickSize: dec("0.01"), MinOrderSize: dec("5")})
}

func tradeAt(at int, token, price, size string, taker exchange.Side) Event {
	return TradeEvent(&Trade{Stamp: Stamp{Exchange: ms(at)}, TokenID: token, Market: testCond, Price: dec(price), Size: dec(size), TakerSide: taker})
}

// newTestReplay builds a Replay over events with the given latencies.
func newTestReplay(tb testing.TB, evs []Event, lat Latency) (*Replay, *Accumulator) {
	tb.Helper()
	acc := NewAccumulator(AccumulatorConfig{})
	r, err := NewReplay(&SliceSource{Events: evs}, ReplayConfig{Markets: []strategy.Market{testMarket()},
		Matcher: MatcherConfig{Latency: lat}}, acc)
	if err != nil {
		tb.Fatal(err)
	}
	return r, acc
}

// item signs one order with the backtest signer.
func item(tb testing.TB, s *Signer, token string, side exchange.Side, price, size string) (exchange.PlacementItem, string) {
	tb.Helper()
	m := testMarket()
	it, hash, err := s.SignOrder(&m, &strategy.Order{TokenID: token, Side: side, Price: dec(price), Size: dec(size)}, exchange.GTC)
	if err != nil {
		tb.Fatal(err)
	}
	return it, hash
}

func place(tb testing.TB, r *Replay, items ...exchange.PlacementItem) []exchange.PlacementResult {
	tb.Helper()
	res, err := r.PlaceOrders(context.Background(), items)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func orderOf(tb testing.TB, r *Replay, id string) *exchange.Order {
	tb.Helper()
	o, err := r.Order(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return o
}

var _ = decimal.Zero

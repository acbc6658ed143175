package replay

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// bookAt is a book event of token at t (ms after t0) from "price:size"
// levels.
func bookAt(tb testing.TB, at int, token string, bids, asks []string) recording.Event {
	tb.Helper()
	return recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(at)}, TokenID: token, Market: synthetic.Cond,
		Bids: fixture.Lv(tb, bids...), Asks: fixture.Lv(tb, asks...), TickSize: fixture.Dec("0.01"), MinOrderSize: fixture.Dec("5")})
}

func tradeAt(at int, token, price, size string, taker exchange.Side) recording.Event {
	return recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: fixture.Ms(at)}, TokenID: token, Market: synthetic.Cond, Price: fixture.Dec(price), Size: fixture.Dec(size), TakerSide: taker})
}

// newTestReplay builds a Replay over events with the given latencies.
func newTestReplay(tb testing.TB, evs []recording.Event, lat fillmodel.Latency) (*Replay, *accounting.Accumulator) {
	tb.Helper()
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{})
	r, err := New(&SliceSource{Events: evs}, Config{Markets: []strategy.Market{synthetic.Market()},
		Matcher: fillmodel.MatcherConfig{Latency: lat}}, acc)
	if err != nil {
		tb.Fatal(err)
	}
	return r, acc
}

// item signs one order with the backtest signer.
func item(tb testing.TB, s *Signer, token string, side exchange.Side, price, size string) (exchange.PlacementItem, string) {
	tb.Helper()
	m := synthetic.Market()
	it, hash, err := s.SignOrder(&m, &strategy.Order{TokenID: token, Side: side, Price: fixture.Dec(price), Size: fixture.Dec(size)}, exchange.GTC)
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

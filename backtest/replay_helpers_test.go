package backtest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Test markets: one binary market "0xm" with tokens "Y" (YES) and "N" (NO).
const (
	testCond = "0xm"
	tokY     = "Y"
	tokN     = "N"
)

func testMarket() strategy.Market {
	return strategy.Market{ConditionID: testCond, TokenIDs: [2]string{tokY, tokN}, Tick: dec("0.01"), MinSize: dec("5")}
}

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

// synthConfig shapes a synthetic recording of one market: a random walk of
// the fair price in logit space, a ladder of levels around it on both
// tokens (the NO book mirrors the YES book), book updates at a fixed rate
// and taker trades, a fraction of them informed (trading toward where the
// price is about to go).
type synthConfig struct {
	Seed     uint64
	Duration time.Duration
	Books    int     // book events per second per token
	Levels   int     // levels per side
	Trades   float64 // trades per second
	Informed float64 // fraction of informed trades
	Vol      float64 // logit volatility per sqrt(hour)
}

// synthEvents generates the recording in memory, in time order.
func synthEvents(tb testing.TB, c synthConfig) []Event {
	var out []Event
	synth(tb, c, func(e Event) { out = append(out, e) })
	return out
}

// synth calls emit with each event of the recording.
func synth(tb testing.TB, c synthConfig, emit func(Event)) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(c.Seed, 99))
	step := time.Second / time.Duration(c.Books)
	x := 0.0 // logit of the fair price
	sig := c.Vol * math.Sqrt(step.Hours())
	emit(MetaEvent(&Meta{Stamp: Stamp{Exchange: t0}, Market: testCond, EndDate: t0.Add(30 * 24 * time.Hour)}))
	tickF := Fixed(10_000)
	levels := func(mid float64, bid bool, i int) []exchange.PriceLevel {
		out := make([]exchange.PriceLevel, 0, c.Levels)
		for l := 0; l < c.Levels; l++ {
			var p Fixed
			if bid {
				p = Fixed(math.Floor(mid*100-1-float64(l))) * tickF
			} else {
				p = Fixed(math.Ceil(mid*100+1+float64(l))) * tickF
			}
			if p < tickF || p > FixedScale-tickF {
				break
			}
			size := Fixed(100+(i*7+l*13)%400) * FixedScale
			out = append(out, exchange.PriceLevel{Price: p.Decimal(), Size: size.Decimal()})
		}
		return out
	}
	var drift float64
	for i := 0; t0.Add(time.Duration(i) * step).Before(t0.Add(c.Duration)); i++ {
		now := t0.Add(time.Duration(i) * step)
		if i%c.Books == 0 {
			drift = rng.NormFloat64() * sig * math.Sqrt(float64(c.Books)) // the next second's move
		}
		x += drift/float64(c.Books) + rng.NormFloat64()*sig*0.3
		x = max(min(x, 3), -3)
		p := 1 / (1 + math.Exp(-x))
		for _, tok := range []string{tokY, tokN} {
			mid := p
			if tok == tokN {
				mid = 1 - p
			}
			emit(BookEvent(&Book{Stamp: Stamp{Exchange: now}, TokenID: tok, Market: testCond,
				Bids: levels(mid, true, i), Asks: levels(mid, false, i), TickSize: dec("0.01"), MinOrderSize: dec("5")}))
		}
		if rng.Float64() < c.Trades/float64(c.Books) {
			buy := rng.Float64() < 0.5
			if rng.Float64() < c.Informed {
				buy = drift > 0
			}
			tok, side := tokY, exchange.Buy
			price := Fixed(math.Ceil(p*100+1)) * tickF
			if !buy {
				side = exchange.Sell
				price = Fixed(math.Floor(p*100-1)) * tickF
			}
			if rng.Float64() < 0.5 { // the same trade on the NO token
				tok = tokN
				side = side.Opposite()
				if side == exchange.Buy {
					price = Fixed(math.Ceil((1-p)*100+1)) * tickF
				} else {
					price = Fixed(math.Floor((1-p)*100-1)) * tickF
				}
			}
			if price >= tickF && price <= FixedScale-tickF {
				size := Fixed(5+rng.IntN(200)) * FixedScale
				emit(TradeEvent(&Trade{Stamp: Stamp{Exchange: now.Add(step / 2)}, TokenID: tok, Market: testCond,
					Price: price.Decimal(), Size: size.Decimal(), TakerSide: side}))
			}
		}
	}
}

var _ = decimal.Zero

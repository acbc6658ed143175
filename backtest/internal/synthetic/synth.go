package synthetic

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
	"github.com/shopspring/decimal"
)

// Test markets: one binary market "0xm" with tokens "Y" (YES) and "N" (NO).
const (
	Cond = "0xm"
	TokY = "Y"
	TokN = "N"
)

func Market() strategy.Market {
	return strategy.Market{ConditionID: Cond, TokenIDs: [2]string{TokY, TokN}, Tick: fixture.Dec("0.01"), MinSize: fixture.Dec("5")}
}

// synthConfig shapes a synthetic recording of one market: a random walk of
// the fair price in logit space, a ladder of levels around it on both
// tokens (the NO book mirrors the YES book), book updates at a fixed rate
// and taker trades, a fraction of them informed (trading toward where the
// price is about to go).
type Config struct {
	Seed     uint64
	Duration time.Duration
	Books    int     // book events per second per token
	Levels   int     // levels per side
	Trades   float64 // trades per second
	Informed float64 // fraction of informed trades
	Vol      float64 // logit volatility per sqrt(hour)
}

// synthEvents generates the recording in memory, in time order.
func Events(tb testing.TB, c Config) []recording.Event {
	var out []recording.Event
	Emit(tb, c, func(e recording.Event) { out = append(out, e) })
	return out
}

// synth calls emit with each event of the recording.
func Emit(tb testing.TB, c Config, emit func(recording.Event)) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(c.Seed, 99))
	step := time.Second / time.Duration(c.Books)
	x := 0.0 // logit of the fair price
	sig := c.Vol * math.Sqrt(step.Hours())
	emit(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.T0}, Market: Cond, EndDate: fixture.T0.Add(30 * 24 * time.Hour)}))
	tickF := exchange.Fixed(10_000)
	levels := func(mid float64, bid bool, i int) []exchange.PriceLevel {
		out := make([]exchange.PriceLevel, 0, c.Levels)
		for l := 0; l < c.Levels; l++ {
			var p exchange.Fixed
			if bid {
				p = exchange.Fixed(math.Floor(mid*100-1-float64(l))) * tickF
			} else {
				p = exchange.Fixed(math.Ceil(mid*100+1+float64(l))) * tickF
			}
			if p < tickF || p > exchange.FixedScale-tickF {
				break
			}
			size := exchange.Fixed(100+(i*7+l*13)%400) * exchange.FixedScale
			out = append(out, exchange.PriceLevel{Price: p.Decimal(), Size: size.Decimal()})
		}
		return out
	}
	var drift float64
	for i := 0; fixture.T0.Add(time.Duration(i) * step).Before(fixture.T0.Add(c.Duration)); i++ {
		now := fixture.T0.Add(time.Duration(i) * step)
		if i%c.Books == 0 {
			drift = rng.NormFloat64() * sig * math.Sqrt(float64(c.Books)) // the next second's move
		}
		x += drift/float64(c.Books) + rng.NormFloat64()*sig*0.3
		x = max(min(x, 3), -3)
		p := 1 / (1 + math.Exp(-x))
		for _, tok := range []string{TokY, TokN} {
			mid := p
			if tok == TokN {
				mid = 1 - p
			}
			emit(recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: now}, TokenID: tok, Market: Cond,
				Bids: levels(mid, true, i), Asks: levels(mid, false, i), TickSize: fixture.Dec("0.01"), MinOrderSize: fixture.Dec("5")}))
		}
		if rng.Float64() < c.Trades/float64(c.Books) {
			buy := rng.Float64() < 0.5
			if rng.Float64() < c.Informed {
				buy = drift > 0
			}
			tok, side := TokY, exchange.Buy
			price := exchange.Fixed(math.Ceil(p*100+1)) * tickF
			if !buy {
				side = exchange.Sell
				price = exchange.Fixed(math.Floor(p*100-1)) * tickF
			}
			if rng.Float64() < 0.5 { // the same trade on the NO token
				tok = TokN
				side = side.Opposite()
				if side == exchange.Buy {
					price = exchange.Fixed(math.Ceil((1-p)*100+1)) * tickF
				} else {
					price = exchange.Fixed(math.Floor((1-p)*100-1)) * tickF
				}
			}
			if price >= tickF && price <= exchange.FixedScale-tickF {
				size := exchange.Fixed(5+rng.IntN(200)) * exchange.FixedScale
				emit(recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: now.Add(step / 2)}, TokenID: tok, Market: Cond,
					Price: price.Decimal(), Size: size.Decimal(), TakerSide: side}))
			}
		}
	}
}

// DenseBooks is a busy market: 50 book updates a second on each token, 20
// levels a side, 2 trades a second.
func DenseBooks(d time.Duration) Config {
	return Config{Seed: 1, Duration: d, Books: 50, Levels: 20, Trades: 2, Informed: 0.3, Vol: 0.5}
}

// writeSynth writes a synthetic recording to path.
func Write(tb testing.TB, path string, c Config) int {
	tb.Helper()
	w, err := recording.NewWriter(path, recording.WithCreated(fixture.T0), recording.WithCompressionLevel(1))
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	Emit(tb, c, func(e recording.Event) {
		if err := w.Write(e); err != nil {
			tb.Fatal(err)
		}
		n++
	})
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return n
}

// genRecording writes a recording of n events: per 10 events, 9 book
// snapshots of 20 levels a side and one trade, 100 ms apart, across 4 tokens.
func WriteSimple(tb testing.TB, path string, n int) {
	tb.Helper()
	w, err := recording.NewWriter(path, recording.WithCreated(fixture.T0), recording.WithCompressionLevel(1))
	if err != nil {
		tb.Fatal(err)
	}
	tokens := []string{"1111111111", "2222222222", "3333333333", "4444444444"}
	bids := make([]exchange.PriceLevel, 20)
	asks := make([]exchange.PriceLevel, 20)
	for i := 0; i < n; i++ {
		st := recording.Stamp{Exchange: fixture.T0.Add(time.Duration(i) * 100 * time.Millisecond)}
		st.Received = st.Exchange.Add(3 * time.Millisecond)
		tok := tokens[i%len(tokens)]
		if i%10 == 9 {
			err = w.Write(recording.TradeEvent(&recording.Trade{Stamp: st, TokenID: tok, Market: "0xm", Price: decimal.New(50, -2), Size: decimal.New(int64(1+i%500), -1), TakerSide: exchange.Sell}))
		} else {
			for l := range bids {
				bids[l] = exchange.PriceLevel{Price: decimal.New(int64(49-l), -2), Size: decimal.New(int64(100+(i*7+l*13)%5000), -2)}
				asks[l] = exchange.PriceLevel{Price: decimal.New(int64(51+l), -2), Size: decimal.New(int64(100+(i*11+l*3)%5000), -2)}
			}
			err = w.Write(recording.BookEvent(&recording.Book{Stamp: st, TokenID: tok, Market: "0xm", Bids: bids, Asks: asks, TickSize: decimal.New(1, -2), MinOrderSize: decimal.New(5, 0)}))
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

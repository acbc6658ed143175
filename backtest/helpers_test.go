package backtest

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// t0 is the start of every hand-made event sequence.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// lv builds levels from "price:size" pairs.
func lv(tb testing.TB, pairs ...string) []exchange.PriceLevel {
	tb.Helper()
	out := make([]exchange.PriceLevel, 0, len(pairs))
	for _, p := range pairs {
		var price, size string
		for i := 0; i < len(p); i++ {
			if p[i] == ':' {
				price, size = p[:i], p[i+1:]
			}
		}
		if price == "" {
			tb.Fatalf("bad level %q", p)
		}
		out = append(out, exchange.PriceLevel{Price: dec(price), Size: dec(size)})
	}
	return out
}

func sampleEvents(tb testing.TB) []Event {
	return []Event{
		MetaEvent(&Meta{Stamp: Stamp{Exchange: ms(0)}, Market: "0xmkt", EndDate: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(1000), Received: ms(1003).Add(417)}, TokenID: "111", Market: "0xmkt",
			Bids: lv(tb, "0.5:15", "0.49:20", "0.48:30"), Asks: lv(tb, "0.52:25", "0.53:60"),
			TickSize: dec("0.01"), MinOrderSize: dec("5")}),
		TradeEvent(&Trade{Stamp: Stamp{Exchange: ms(1500), Received: ms(1504)}, TokenID: "111", Market: "0xmkt",
			Price: dec("0.5"), Size: dec("219.217767"), TakerSide: exchange.Sell}),
		TradeEvent(&Trade{Stamp: Stamp{Exchange: ms(1600), Received: ms(1604)}, TokenID: "111", Market: "0xmkt",
			Price: dec("0.52"), Size: dec("1")}),
		BookEvent(&Book{Stamp: Stamp{Received: ms(2000)}, TokenID: "222 \"quoted\" \x01 é", Market: "0xmkt",
			Bids: []exchange.PriceLevel{}, Asks: lv(tb, "0.001:1000000")}),
		MetaEvent(&Meta{Stamp: Stamp{Exchange: ms(3000)}, TokenID: "111", Market: "0xmkt", TickSize: dec("0.001")}),
		MetaEvent(&Meta{Stamp: Stamp{Exchange: ms(4000)}, TokenID: "111", Market: "0xmkt", Resolved: true, Payout: dec("1")}),
		MetaEvent(&Meta{Stamp: Stamp{Exchange: ms(4000)}, TokenID: "222", Market: "0xmkt", Resolved: true, Payout: decimal.Zero}),
	}
}

package recording

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

func sampleEvents(tb testing.TB) []Event {
	return []Event{
		MetaEvent(&Meta{Stamp: Stamp{Exchange: fixture.Ms(0)}, Market: "0xmkt", EndDate: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)}),
		BookEvent(&Book{Stamp: Stamp{Exchange: fixture.Ms(1000), Received: fixture.Ms(1003).Add(417)}, TokenID: "111", Market: "0xmkt",
			Bids: fixture.Lv(tb, "0.5:15", "0.49:20", "0.48:30"), Asks: fixture.Lv(tb, "0.52:25", "0.53:60"),
			TickSize: fixture.Dec("0.01"), MinOrderSize: fixture.Dec("5")}),
		TradeEvent(&Trade{Stamp: Stamp{Exchange: fixture.Ms(1500), Received: fixture.Ms(1504)}, TokenID: "111", Market: "0xmkt",
			Price: fixture.Dec("0.5"), Size: fixture.Dec("219.217767"), TakerSide: exchange.Sell}),
		TradeEvent(&Trade{Stamp: Stamp{Exchange: fixture.Ms(1600), Received: fixture.Ms(1604)}, TokenID: "111", Market: "0xmkt",
			Price: fixture.Dec("0.52"), Size: fixture.Dec("1")}),
		BookEvent(&Book{Stamp: Stamp{Received: fixture.Ms(2000)}, TokenID: "222 \"quoted\" \x01 é", Market: "0xmkt",
			Bids: []exchange.PriceLevel{}, Asks: fixture.Lv(tb, "0.001:1000000")}),
		MetaEvent(&Meta{Stamp: Stamp{Exchange: fixture.Ms(3000)}, TokenID: "111", Market: "0xmkt", TickSize: fixture.Dec("0.001")}),
		MetaEvent(&Meta{Stamp: Stamp{Exchange: fixture.Ms(4000)}, TokenID: "111", Market: "0xmkt", Resolved: true, Payout: fixture.Dec("1")}),
		MetaEvent(&Meta{Stamp: Stamp{Exchange: fixture.Ms(4000)}, TokenID: "222", Market: "0xmkt", Resolved: true, Payout: decimal.Zero}),
	}
}

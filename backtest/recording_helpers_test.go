package backtest

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

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

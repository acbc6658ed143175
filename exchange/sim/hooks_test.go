package sim

import (
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

func TestHooks(t *testing.T) {
	var trades []TradeEvent
	var books []BookEvent
	env := setup(t, 2, func(c *Config) {
		c.OnTrade = func(ev TradeEvent) { trades = append(trades, ev) }
		c.OnBook = func(ev BookEvent) { books = append(books, ev) }
	})
	a, b := env.accs[0], env.accs[1]
	s := env.openMarket(false)
	a.place(t, a.order(t, s, 0, exchange.Buy, "0.4", "10", exchange.GTC))
	if len(books) == 0 || len(trades) != 0 {
		t.Fatalf("after a resting order: %d book events, %d trades", len(books), len(trades))
	}
	last := books[len(books)-1]
	if last.Market != s.m.ConditionID || len(last.Books[0].Bids) != 1 || len(last.Books[1].Asks) != 1 || last.Books[1].Asks[0].Price.String() != "0.6" {
		t.Fatalf("book event %+v", last)
	}
	b.place(t, b.order(t, s, 1, exchange.Buy, "0.6", "4", exchange.FAK)) // mints against a's bid
	if len(trades) != 1 {
		t.Fatalf("trades %+v", trades)
	}
	tr := trades[0]
	if tr.Kind != "mint" || tr.Token != s.m.TokenIDs[1] || tr.Side != exchange.Buy || tr.Price.String() != "0.6" ||
		tr.Size.String() != "4" || tr.TakerWallet != b.creds.Wallet || tr.MakerWallet != a.creds.Wallet {
		t.Errorf("trade event %+v", tr)
	}
	if got := books[len(books)-1].Books[0].Bids[0].Size.String(); got != "6" {
		t.Errorf("book after the fill: bid size %s", got)
	}
}

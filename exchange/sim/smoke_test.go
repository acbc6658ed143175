package sim

import (
	"context"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

func TestSmokePlaceMatchRead(t *testing.T) {
	env := setup(t, 2)
	a, b := env.accs[0], env.accs[1]
	s := env.openMarket(false)
	ctx := context.Background()
	tick := s.m.TickSize.String()
	_ = tick
	res := a.place(t, a.order(t, s, 0, exchange.Buy, "0.4", "10", exchange.GTC))
	if !res[0].Success || res[0].Status != exchange.PlaceLive {
		t.Fatalf("place: %+v", res[0])
	}
	res2 := b.place(t, b.order(t, s, 0, exchange.Sell, "0.4", "4", exchange.FAK))
	if !res2[0].Success || res2[0].Status != exchange.PlaceMatched || res2[0].TakingAmount != "1.6" {
		t.Fatalf("match: %+v", res2[0])
	}
	o, err := a.client.Order(ctx, res[0].OrderID)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != exchange.StatusLive || o.SizeMatched.String() != "4" || len(o.AssociateTrades) != 1 {
		t.Fatalf("order %+v", o)
	}
	books, err := a.client.Books(ctx, []string{s.m.TokenIDs[0]})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("book %+v", books[0])
	trades, err := a.client.Trades(ctx, exchange.TradesParams{})
	if err != nil || len(trades) != 1 {
		t.Fatalf("trades %v %+v", err, trades)
	}
	cr, err := a.client.CancelOrder(ctx, res[0].OrderID)
	if err != nil || len(cr.Canceled) != 1 {
		t.Fatalf("cancel %v %+v", err, cr)
	}
}

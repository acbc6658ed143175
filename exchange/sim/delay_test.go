package sim

import (
	"context"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// In a market with a seconds_delay, a placement answers "delayed", rests
// nowhere until the delay has passed (a crossing order does not match, the
// book does not show it), then reaches the book; a cancel while it is held
// keeps it out for good.
func TestPlacementDelay(t *testing.T) {
	env := setup(t, 2)
	s := env.openMarket(false)
	env.ex.mu.Lock()
	s.m.SecondsDelay = 3
	env.ex.mu.Unlock()
	maker, taker := env.accs[0], env.accs[1]
	ctx := context.Background()

	res := maker.place(t, maker.order(t, s, 0, exchange.Sell, "0.6", "10", exchange.GTC))
	if !res[0].Success || res[0].Status != exchange.PlaceDelayed {
		t.Fatalf("placement in a delayed market: %+v, want delayed", res[0])
	}
	id := res[0].OrderID
	o, err := maker.client.Order(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != exchange.StatusLive || !o.SizeMatched.IsZero() {
		t.Errorf("held order reads %s, matched %s; want LIVE, 0", o.Status, o.SizeMatched)
	}
	asks := func() int {
		t.Helper()
		b, err := env.ex.Book(s.m.TokenIDs[0])
		if err != nil {
			t.Fatal(err)
		}
		return len(b.Asks)
	}
	if n := asks(); n != 0 {
		t.Errorf("the book shows %d asks during the delay", n)
	}
	if err := env.ex.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if n := asks(); n != 0 {
		t.Errorf("the book shows %d asks 2 s into a 3 s delay", n)
	}
	if err := env.ex.Advance(time.Second + 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if n := asks(); n != 1 {
		t.Fatalf("the book shows %d asks after the delay, want 1", n)
	}
	// The taker's crossing order is delayed too, then matches.
	res = taker.place(t, taker.order(t, s, 0, exchange.Buy, "0.6", "10", exchange.GTC))
	if res[0].Status != exchange.PlaceDelayed {
		t.Fatalf("taker placement %+v, want delayed", res[0])
	}
	if err := env.ex.Advance(3100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if o, err := maker.client.Order(ctx, id); err != nil || o.Status != exchange.StatusMatched {
		t.Errorf("the resting order after the taker's delay: %+v, %v; want MATCHED", o, err)
	}
	// Cancelled while held: never reaches the book.
	res = maker.place(t, maker.order(t, s, 0, exchange.Sell, "0.7", "10", exchange.GTC))
	if _, err := maker.client.CancelOrder(ctx, res[0].OrderID); err != nil {
		t.Fatal(err)
	}
	if err := env.ex.Advance(4 * time.Second); err != nil {
		t.Fatal(err)
	}
	if n := asks(); n != 0 {
		t.Errorf("an order cancelled during its delay reached the book (%d asks)", n)
	}
	if o, err := maker.client.Order(ctx, res[0].OrderID); err != nil || o.Status != exchange.StatusCanceled {
		t.Errorf("cancelled held order: %+v, %v", o, err)
	}
}

package backtest

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// twoBooks is the opening of every hand-made recording: both tokens'
// books at t0.
func twoBooks(tb testing.TB) []Event {
	return []Event{
		bookAt(tb, 0, tokY, []string{"0.48:100", "0.47:200"}, []string{"0.52:100", "0.53:200"}),
		bookAt(tb, 0, tokN, []string{"0.48:100"}, []string{"0.52:100"}),
	}
}

func TestReplayFillAfterOrderLatency(t *testing.T) {
	lat := Latency{Order: Constant(50 * time.Millisecond), Cancel: Constant(50 * time.Millisecond)}
	for _, tc := range []struct {
		name    string
		tradeAt int // ms after t0
		filled  bool
	}{
		{"trade before the order rests", 30, false},
		{"trade after the order rests", 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := append(twoBooks(t), tradeAt(tc.tradeAt, tokY, "0.48", "5", exchange.Sell), bookAt(t, 2000, tokY, []string{"0.48:95"}, []string{"0.52:100"}))
			r, acc := newTestReplay(t, evs, lat)
			var s Signer
			it, id := item(t, &s, tokY, exchange.Buy, "0.49", "10")
			res := place(t, r, it)
			if !res[0].Success || res[0].OrderID != id || res[0].Status != exchange.PlaceLive {
				t.Fatalf("placement %+v, want success, live, id %s", res[0], id)
			}
			if got := r.Now(); !got.Equal(ms(50)) {
				t.Fatalf("PlaceOrders returned at %v, want once the order rests at +50ms", got.Sub(t0))
			}
			if err := r.Sleep(context.Background(), 3*time.Second); err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			o := orderOf(t, r, id)
			wantMatched, wantStatus := "0", exchange.StatusLive
			if tc.filled {
				wantMatched, wantStatus = "10", exchange.StatusMatched
			}
			if o.SizeMatched.String() != wantMatched || o.Status != wantStatus {
				t.Fatalf("order %s matched %s, want %s %s", o.Status, o.SizeMatched, wantStatus, wantMatched)
			}
			res2, err := acc.Finish(r.End())
			if err != nil {
				t.Fatal(err)
			}
			if wantFills := map[bool]int{true: 1, false: 0}[tc.filled]; res2.Total.Fills != wantFills || res2.Total.OrdersSent != 1 {
				t.Fatalf("accumulator: %d fills, %d orders sent; want %d, 1", res2.Total.Fills, res2.Total.OrdersSent, wantFills)
			}
		})
	}
}

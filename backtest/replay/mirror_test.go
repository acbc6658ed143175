package replay

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/exchange"
)

// A print on one token goes through the other token's orders at the
// complementary price: the two tokens share one book (a BUY of YES at p is
// a SELL of NO at 1 − p, matched by minting), so a taker buying YES at 0.52
// would have met our BUY of NO at 0.49 (a YES ask at 0.51) first.
func TestReplayTradeGoesThroughTheOtherToken(t *testing.T) {
	lat := fillmodel.Latency{Order: fillmodel.Constant(50 * time.Millisecond), Cancel: fillmodel.Constant(50 * time.Millisecond)}
	for _, tc := range []struct {
		name         string
		tradeToken   string
		price        string
		taker        exchange.Side
		orderToken   string
		side         exchange.Side
		orderPrice   string
		wantMatched  string
		wantStatusOf string
	}{
		{"YES buyer fills our NO bid", synthetic.TokY, "0.52", exchange.Buy, synthetic.TokN, exchange.Buy, "0.49", "10", exchange.StatusMatched},
		{"NO buyer fills our YES bid", synthetic.TokN, "0.52", exchange.Buy, synthetic.TokY, exchange.Buy, "0.49", "10", exchange.StatusMatched},
		{"YES buyer below our complement leaves our NO bid", synthetic.TokY, "0.50", exchange.Buy, synthetic.TokN, exchange.Buy, "0.49", "0", exchange.StatusLive},
		{"YES seller does not fill our NO bid", synthetic.TokY, "0.40", exchange.Sell, synthetic.TokN, exchange.Buy, "0.49", "0", exchange.StatusLive},
		{"YES seller fills our NO ask (a merge)", synthetic.TokY, "0.45", exchange.Sell, synthetic.TokN, exchange.Sell, "0.53", "10", exchange.StatusMatched},
		{"the same token still fills as before", synthetic.TokY, "0.47", exchange.Sell, synthetic.TokY, exchange.Buy, "0.49", "10", exchange.StatusMatched},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := append(twoBooks(t), tradeAt(1000, tc.tradeToken, tc.price, "25", tc.taker),
				bookAt(t, 2000, synthetic.TokY, []string{"0.48:100"}, []string{"0.52:100"}))
			r, _ := newTestReplay(t, evs, lat)
			if tc.side == exchange.Sell {
				// A SELL needs the shares: buy them first from the book.
				var s Signer
				buy, _ := item(t, &s, tc.orderToken, exchange.Buy, "0.52", "10") // crosses the ask of 0.52
				if res := place(t, r, buy); !res[0].Success {
					t.Fatalf("buying the shares to sell: %+v", res[0])
				}
			}
			var s Signer
			it, id := item(t, &s, tc.orderToken, tc.side, tc.orderPrice, "10")
			if res := place(t, r, it); !res[0].Success {
				t.Fatalf("placement %+v", res[0])
			}
			if err := r.Sleep(context.Background(), 3*time.Second); err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			o := orderOf(t, r, id)
			if o.SizeMatched.String() != tc.wantMatched || o.Status != tc.wantStatusOf {
				t.Fatalf("order %s matched %s, want %s matched %s", o.Status, o.SizeMatched, tc.wantStatusOf, tc.wantMatched)
			}
		})
	}
}

package exchange

import (
	"context"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/clocktest"
)

// greedy sends one request of costs after another on clk, each as soon as
// the limiter admits it, from clk's now for span, and returns what an
// outside counter (a proxy in front of the exchange) records: the time of
// every request that went out and its units (orders for POST /orders, one
// for anything else). The test drives the clock itself: it moves it to the
// earliest admission and only then calls wait, which admits at once.
func greedy(t *testing.T, lm *limiter, clk *clocktest.Clock, endpoint string, costs []cost, units int, span time.Duration) []admission {
	t.Helper()
	ctx := context.Background()
	end := clk.Now().Add(span)
	var sent []admission
	for {
		now := clk.Now()
		var d time.Duration
		for _, c := range costs {
			d = max(d, lm.buckets[c.b].delay(now, c.n))
		}
		if now.Add(d).After(end) {
			return sent
		}
		clk.Advance(d)
		if err := lm.wait(ctx, clk, endpoint, costs); err != nil {
			t.Fatalf("%s at %v: %v", endpoint, clk.Now().Sub(t0), err)
		}
		sent = append(sent, admission{clk.Now(), units})
	}
}

// TestGreedyWindowsBelowFill is the measurement on a fake clock: a
// client that sends as fast as its limiter admits, through the start-up
// burst and a long steady phase, must never put more than 95 % of a cap
// into any sliding window of it, counted from outside. Every request's
// time is recorded and every closed window of the cap's length is counted
// (maxInWindow), so the start-up burst and the windows that straddle its
// end are included. The binding cap's busiest window must also come within
// one request of that bound: the limiter is not merely slow.
func TestGreedyWindowsBelowFill(t *testing.T) {
	loose := func() Limits { // the POST /order 10 s window on its own
		l := DefaultLimits()
		l.PostOrderSustained = Cap{10_000_000, 10 * time.Minute}
		return l
	}
	tests := []struct {
		name   string
		limits func() Limits
		ep     endpointID
		batch  int // orders per POST /orders; 0 for other endpoints
		span   time.Duration
		check  []bucketID // every window of these caps ≤ 0.95·C
		binds  bucketID   // and this one's busiest window ≥ floor(0.95·C) − one request
	}{
		{"POST /books", DefaultLimits, epBooks, 0, 10 * time.Minute, []bucketID{bCLOBBooks, bCLOBGeneral}, bCLOBBooks},
		{"POST /orders, both windows", DefaultLimits, epPlaceOrders, 15, 35 * time.Minute,
			[]bucketID{bPostOrderBurst, bPostOrderSustained, bCLOBGeneral}, bPostOrderSustained},
		{"POST /orders, the 10 s window binding", loose, epPlaceOrders, 1, 2 * time.Minute,
			[]bucketID{bPostOrderBurst, bCLOBGeneral}, bPostOrderBurst},
		{"POST /orders, the 10 s window binding, batches of 15", loose, epPlaceOrders, 15, 2 * time.Minute,
			[]bucketID{bPostOrderBurst}, bPostOrderBurst},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.limits()
			clk := clocktest.New(t0)
			lm, err := newLimiter(l, clk.Now(), nil)
			if err != nil {
				t.Fatal(err)
			}
			s := &endpointSpecs[tt.ep]
			orders := max(tt.batch, 1)
			sent := greedy(t, lm, clk, s.Name(), s.costs(orders), orders, tt.span)
			requests := make([]admission, len(sent)) // what the general cap counts
			for i, a := range sent {
				requests[i] = admission{a.at, 1}
			}
			for _, id := range tt.check {
				c := l.caps()[id]
				count := sent
				if id == bCLOBGeneral {
					count = requests
				}
				n := maxInWindow(count, c.Window)
				frac := float64(n) / float64(c.Requests)
				t.Logf("%-22s busiest %s window: %5d of %5d (%.4f)", id, c.Window, n, c.Requests, frac)
				if frac > 0.95 {
					t.Errorf("%s: %d in one window of %s: %.4f of the cap %d, want at most 0.95", id, n, c.Window, frac, c.Requests)
				}
				if want := int(0.95*float64(c.Requests)) - orders; id == tt.binds && n < want {
					t.Errorf("%s binds but its busiest window holds only %d (%.4f of the cap), want at least %d", id, n, frac, want)
				}
			}
		})
	}
}

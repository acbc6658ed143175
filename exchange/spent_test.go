package exchange

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/clocktest"
)

// restartAt is the start of the second process in the seeding tests: an
// hour after t0, on a slot boundary of both the 10 s buckets (10 ms slots)
// and the 10 min buckets (600 ms slots), as are all the history times below.
var restartAt = t0.Add(time.Hour)

// units is a history of n units at each of the given seconds before
// restartAt.
func units(n int64, secondsBefore ...float64) []SpentUnits {
	out := make([]SpentUnits, 0, len(secondsBefore))
	for i := len(secondsBefore) - 1; i >= 0; i-- {
		out = append(out, SpentUnits{At: restartAt.Add(-time.Duration(secondsBefore[i] * float64(time.Second))), N: n})
	}
	return out
}

// every returns step, 2·step, ... up to last (seconds before restartAt).
func every(step, last float64) []float64 {
	var out []float64
	for s := step; s <= last+1e-9; s += step {
		out = append(out, s)
	}
	return out
}

// seeded returns a client with default limits on a fake clock at restartAt,
// started from sp.
func seeded(t *testing.T, sp Spent) (*Client, *clocktest.Clock) {
	t.Helper()
	clk := clocktest.New(restartAt)
	c, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithClock(clk), WithSpent(sp))
	if err != nil {
		t.Fatal(err)
	}
	return c, clk
}

func tokens(c *Client, now time.Time, id bucketID) float64 { return c.Buckets(now)[id].Tokens }

// TestWithSpentRemaining: a process that spent N units in the last W starts
// with exactly what the window ceiling T = fill·C leaves, for both windows
// of the order caps. With the spec's POST /order caps: burst 2400/10 s
// (T = 2280, B = 114, r = 216.6/s) and sustained 24000/10 min (T = 22800,
// B = 1140, r = 36.1/s), so T − r·W = B for both, and a bucket's budget at
// the restart is min over the window's starts a of
// B + r·(now − a) − (units spent in [a, now]), at most B.
func TestWithSpentRemaining(t *testing.T) {
	steady := units(1083, every(30, 600)...) // 36.1/s for ten minutes, 1083 every 30 s (50 slots)
	tests := []struct {
		name             string
		spent            []SpentUnits // in both POST /order buckets
		burst, sustained float64      // tokens at the restart
		orders           int          // Budget().Orders at the restart
		later            time.Duration
		burstL, sustL    float64 // tokens at restartAt+later
		slack            float64 // how far below the exact value the sustained bucket may be
	}{
		{name: "nothing spent", burst: 114, sustained: 1140, orders: 114},
		{
			// 1200 three seconds ago: the burst window owes
			// 1200 − 114 − 216.6·3, the sustained one holds its burst
			// and 3 s of refill less the 1200.
			name: "1200 three seconds ago", spent: units(1200, 3),
			burst: 114 + 216.6*3 - 1200, sustained: 1140 + 36.1*3 - 1200, orders: 0,
			later: 2 * time.Second, burstL: 114 + 216.6*5 - 1200, sustL: 1140 + 36.1*5 - 1200,
		},
		{
			// Between two slots of the sustained log (600 ms): the
			// units count as spent at the slot's end, 0.6 s ago, which
			// costs at most one slot's refill, 36.1·0.6 = 21.66.
			name: "1200 one second ago", spent: units(1200, 1),
			burst: 114 + 216.6 - 1200, sustained: 1140 + 36.1 - 1200, orders: 0, slack: 36.1 * 0.6,
		},
		{
			// 36.1/s for ten minutes is the sustained rate: every window
			// holds r·W, so the full burst is left in both.
			name: "36.1/s for ten minutes", spent: steady,
			burst: 114, sustained: 1140, orders: 114,
		},
		{
			// and then the sustained burst 3 s ago: the sustained window
			// holds T, the burst window owes 1140 − 114 − 216.6·3
			name: "36.1/s for ten minutes, then 1140 more", spent: append(append([]SpentUnits(nil), steady...), units(1140, 3)...),
			burst: 114 + 216.6*3 - 1140, sustained: 0, orders: 0,
			later: 10 * time.Second, burstL: 114, sustL: 361,
		},
		{
			// T = 22800 at the sustained window's far edge: the closed
			// window [−600 s, 0] holds them, and the burst window is
			// untouched.
			name: "22800 600 s ago", spent: units(22800, 600),
			burst: 114, sustained: 0, orders: 0,
			later: 2 * time.Second, burstL: 114, sustL: 36.1 * 2,
		},
		{
			name: "22800 598.8 s ago", spent: units(22800, 598.8),
			burst: 114, sustained: 1140 + 36.1*598.8 - 22800, orders: 0,
			later: 2 * time.Second, burstL: 114, sustL: 1140 + 36.1*600.8 - 22800,
		},
		{
			// older than the window: no effect
			name: "22800 600.6 s ago", spent: units(22800, 600.6),
			burst: 114, sustained: 1140, orders: 114,
		},
		{
			// T = 2280 nine seconds ago fill the burst window [−9 s, +1 s]:
			// 114 + 216.6·9 − 2280 = −216.6, paid back in 1 s; the
			// sustained window owes 2280 − 1140 − 36.1·9.
			name: "2280 nine seconds ago", spent: units(2280, 9),
			burst: -216.6, sustained: 1140 + 36.1*9 - 2280, orders: 0,
			later: 2 * time.Second, burstL: 114, sustL: 1140 + 36.1*11 - 2280,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := Spent{At: restartAt, Final: true, Buckets: []BucketSpent{
				{Name: "post_order_burst", Units: tt.spent},
				{Name: "post_order_sustained", Units: tt.spent},
			}}
			c, _ := seeded(t, sp)
			const eps = 1e-6
			check := func(what string, got, want, slack float64) {
				t.Helper()
				if got > want+eps || got < want-slack-eps {
					t.Errorf("%s: tokens %v, want %v (less at most %v)", what, got, want, slack)
				}
			}
			check("post_order_burst", tokens(c, restartAt, bPostOrderBurst), tt.burst, 0)
			check("post_order_sustained", tokens(c, restartAt, bPostOrderSustained), tt.sustained, tt.slack)
			if b := c.Budget(restartAt); b.Orders != tt.orders || b.Cancels != 114 {
				t.Errorf("budget %+v, want %d orders and 114 cancels (nothing cancelled)", b, tt.orders)
			}
			if tt.later > 0 {
				at := restartAt.Add(tt.later)
				check("post_order_burst "+tt.later.String()+" later", tokens(c, at, bPostOrderBurst), tt.burstL, 0)
				check("post_order_sustained "+tt.later.String()+" later", tokens(c, at, bPostOrderSustained), tt.sustL, tt.slack)
			}
		})
	}
}

// TestWithSpentAfterCrash: a Spent that is not final leaves open that the
// process went on admitting until it died, at any time up to the restart:
// as much as each bucket could give from the tokens it held at the record,
// its burst at once and its refill rate after. With full buckets at the
// record (or nothing known) every bucket therefore starts empty, however
// old the record, and gets its refill rate from there; a bucket that was
// low at the record leaves its successor correspondingly more. The values
// are exact up to one slot's refill and two units (the lump and the stream
// of what the dead process may have sent are each counted in whole units,
// rounded up and late).
func TestWithSpentAfterCrash(t *testing.T) {
	slotRefill := func(id bucketID) float64 { // r·W/1000 + 2
		l := DefaultLimits()
		_, pw := BucketShape(l.caps()[id], l.Fill)
		return pw/spendSlots + 2
	}
	twoSecondsAgo := restartAt.Add(-2 * time.Second)
	tests := []struct {
		name string
		sp   Spent
		want map[bucketID]float64 // tokens at the restart; 0 where not listed
	}{
		{name: "record 2 s old, buckets full", sp: Spent{At: twoSecondsAgo}},
		{name: "record an hour old", sp: Spent{At: restartAt.Add(-time.Hour)}},
		{name: "nothing known (the zero Spent)", sp: Spent{}},
		{
			// The sustained bucket was empty: in 2 s the dead process
			// could send 72.2 more, so 1140 − 72.2 are left. The burst
			// bucket refills 216.6/s: its whole burst was possible again.
			name: "record 2 s old, order buckets empty",
			sp: Spent{At: twoSecondsAgo, Buckets: []BucketSpent{
				{Name: "post_order_burst", Burst: 114, PerSecond: 216.6},
				{Name: "post_order_sustained", Burst: 1140, PerSecond: 36.1},
			}},
			want: map[bucketID]float64{bPostOrderSustained: 1140 - 72.2},
		},
		{
			// In debt by 500 at the record, the burst bucket could give
			// nothing in the 2 s before the restart (−500 + 433.2 < 0).
			name: "record 2 s old, burst bucket in debt",
			sp: Spent{At: twoSecondsAgo, Buckets: []BucketSpent{
				{Name: "post_order_burst", Burst: 114, PerSecond: 216.6, Tokens: -500},
				{Name: "post_order_sustained", Burst: 1140, PerSecond: 36.1, Tokens: 1140},
			}},
			want: map[bucketID]float64{bPostOrderBurst: 114},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := seeded(t, tt.sp)
			for _, id := range []bucketID{bPostOrderBurst, bPostOrderSustained, bDeleteOrderBurst, bDeleteOrderSustained, bCLOBGeneral, bCLOBBooks, bDataGeneral} {
				got, want := tokens(c, restartAt, id), tt.want[id]
				if got > want || got < want-slotRefill(id) {
					t.Errorf("%s: tokens %v at the restart, want in [%v, %v]", id, got, want-slotRefill(id), want)
				}
			}
			if b := c.Budget(restartAt); b.Cancels != 0 {
				t.Errorf("budget %+v at the restart, want no cancel", b)
			}
			// the refill is the bucket's own: 36.1/s in the sustained one
			if b := c.Budget(restartAt.Add(3 * time.Second)); float64(b.Cancels) < 36.1*3-24 || float64(b.Cancels) > 36.1*3 {
				t.Errorf("budget %+v 3 s after the restart, want about 108 cancels", b)
			}
		})
	}
}

// TestRetire: a retired client admits nothing and says so; its Spent is
// final and carries its units, so a successor starts without the margin
// of a crash.
func TestRetire(t *testing.T) {
	clk := clocktest.New(t0)
	c, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 4 { // 60 orders
		if err := c.lim.wait(ctx, clk, "orders", endpointSpecs[epPlaceOrders].costs(15)); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(time.Second)
	if sp := c.Spent(); sp.Final || !sp.At.Equal(t0.Add(time.Second)) {
		t.Errorf("Spent: final %v at %v, want not final at t0+1s", sp.Final, sp.At)
	}
	sp := c.Retire()
	if !sp.Final {
		t.Error("Retire's Spent is not final")
	}
	for _, b := range sp.Buckets {
		want := int64(0)
		switch b.Name {
		case "post_order_burst", "post_order_sustained":
			want = 60
		case "clob_general":
			want = 4
		}
		var got int64
		for _, u := range b.Units {
			got += u.N
			if u.At.Before(t0) || u.At.After(sp.At) {
				t.Errorf("%s: units at %v, outside [t0, At]", b.Name, u.At)
			}
		}
		if got != want {
			t.Errorf("%s: %d units in the final Spent, want %d", b.Name, got, want)
		}
	}
	err = c.lim.wait(ctx, clk, "books", endpointSpecs[epBooks].costs(1))
	if !errors.Is(err, ErrRetired) {
		t.Errorf("request after Retire: %v, want ErrRetired", err)
	}
	if !c.Spent().Final {
		t.Error("Spent after Retire is not final")
	}

	// The successor, at once: the 60 orders a second ago leave
	// 1140 + 36.1 − 60 in the sustained bucket; the burst one has refilled.
	clk2 := clocktest.New(sp.At)
	c2, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithClock(clk2), WithSpent(sp))
	if err != nil {
		t.Fatal(err)
	}
	if got := tokens(c2, clk2.Now(), bPostOrderSustained); math.Abs(got-1116.1) > 1e-6 {
		t.Errorf("successor's post_order_sustained tokens %v, want 1116.1", got)
	}
	if got := tokens(c2, clk2.Now(), bPostOrderBurst); got != 114 {
		t.Errorf("successor's post_order_burst tokens %v, want 114", got)
	}
}

func TestSpentValidate(t *testing.T) {
	bad := []BucketSpent{
		{Name: "x", Burst: -1},
		{Name: "x", PerSecond: math.NaN()},
		{Name: "x", PerSecond: -1},
		{Name: "x", Tokens: math.Inf(-1)},
		{Name: "x", Units: []SpentUnits{{At: t0, N: -1}}},
		{Name: "x", Units: []SpentUnits{{At: t0.Add(time.Second), N: 1}, {At: t0, N: 1}}},
	}
	for _, b := range bad {
		if _, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithSpent(Spent{Buckets: []BucketSpent{b}})); err == nil {
			t.Errorf("WithSpent accepted %+v", b)
		}
	}
	ok := Spent{At: t0, Buckets: []BucketSpent{{Name: "no_such_bucket", Units: []SpentUnits{{At: t0, N: 5}}}}}
	if _, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithSpent(ok)); err != nil {
		t.Errorf("unknown bucket name: %v", err)
	}
}

package loop

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// nextCycle moves the clock a second, refreshes both books around 0.50 and
// runs a cycle.
func (r *loopRig) nextCycle(t *testing.T) {
	t.Helper()
	r.clock.Advance(time.Second)
	r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
	r.v.setBook("no", "0.48", "0.52", r.clock.Now())
	r.cycle(t)
}

// The status lists a market's orders as the journal and the venue hold them,
// our best bid and ask in YES space, and the collateral its BUY orders hold.
func TestLoopStatusOrdersAndCollateral(t *testing.T) {
	r := newRig(t, nil, nil)
	if err := r.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.cycle(t)
	st := r.l.Status()
	if len(st.Markets) != 1 {
		t.Fatalf("%d markets in the status, want 1", len(st.Markets))
	}
	ms := st.Markets[0]
	if ms.Open != 2 || len(ms.Orders) != 2 {
		t.Fatalf("open %d, %d orders listed; want 2 (a bid on each token)", ms.Open, len(ms.Orders))
	}
	nonFinal, _ := r.j.NonFinal()
	for i, o := range ms.Orders {
		j := nonFinal[i]
		if o.Hash != j.Hash || o.State != JLive || o.State != j.State || o.Side != exchange.Buy || !o.Price.Equal(j.Price) || !o.Size.Equal(j.Size) {
			t.Errorf("order %d: status %+v, journal %s %s %s@%s", i, o, j.Hash, j.State, j.Size, j.Price)
		}
		if o.ExchangeID == "" || o.TokenID != testMarket().TokenIDs[o.Outcome] {
			t.Errorf("order %d: exchange id %q, token %q for outcome %s", i, o.ExchangeID, o.TokenID, o.Outcome)
		}
	}
	if ms.Orders[0].Hash >= ms.Orders[1].Hash {
		t.Errorf("orders not sorted by hash: %s, %s", ms.Orders[0].Hash, ms.Orders[1].Hash)
	}
	// BUY YES at 0.48 is the bid; BUY NO at 0.48 is an ask on YES at 0.52.
	if !ms.BestBid.Equal(dec("0.48")) || !ms.BestAsk.Equal(dec("0.52")) {
		t.Errorf("best bid %s ask %s, want 0.48 and 0.52", ms.BestBid, ms.BestAsk)
	}
	// No position: the collateral is the two bids' notional, 2 × 10 × 0.48.
	if !ms.AtRisk.Equal(dec("9.6")) || !ms.OrdersAtRisk.Equal(dec("9.6")) {
		t.Errorf("at risk %s (orders %s), want 9.6 held by the orders", ms.AtRisk, ms.OrdersAtRisk)
	}
	if total, orders := st.AtRisk(); !total.Equal(ms.AtRisk) || !orders.Equal(ms.OrdersAtRisk) {
		t.Errorf("Status.AtRisk %s %s, want the one market's", total, orders)
	}

	// A copy of the status is not changed by later cycles.
	before := r.l.Status()
	r.v.fill("yes", exchange.Buy, "10")
	r.nextCycle(t)
	if len(before.Markets[0].Orders) != 2 || before.Markets[0].Orders[0].State != JLive || !before.Markets[0].Position[0].IsZero() {
		t.Errorf("a published status changed: %+v", before.Markets[0])
	}
}

// A market's PnL is its share of the session's, and its collateral counts
// the unpaired position at fair value.
func TestLoopStatusMarketPnL(t *testing.T) {
	r := newRig(t, nil, nil)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}, AllowSell: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.l.SetParams(Params{Model: model, Tolerance: strategy.Tolerance{SizeFrac: 0.1}}); err != nil {
		t.Fatal(err)
	}
	if err := r.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.cycle(t)
	if id := r.v.fill("yes", exchange.Buy, "10"); id == "" {
		t.Fatal("no live YES bid to fill")
	}
	r.nextCycle(t)
	ms := r.l.Status().Markets[0]
	if !ms.Position[0].Equal(dec("10")) || !ms.Position[1].IsZero() {
		t.Fatalf("position %v, want 10 YES", ms.Position)
	}
	// Bought 10 at 0.48, marked at the fair 0.50: +0.2, nothing realized.
	if !ms.MarkedPnL.Equal(dec("0.2")) || !ms.RealizedPnL.IsZero() {
		t.Errorf("market pnl marked %s realized %s, want 0.2 and 0", ms.MarkedPnL, ms.RealizedPnL)
	}
	tl := r.l.Status().Tally
	if !tl.MarkedPnL.Equal(ms.MarkedPnL) || !tl.RealizedPnL.Equal(ms.RealizedPnL) {
		t.Errorf("session pnl %s/%s, the only market's %s/%s", tl.MarkedPnL, tl.RealizedPnL, ms.MarkedPnL, ms.RealizedPnL)
	}
	// Collateral: every open BUY's remaining notional, plus 10 YES at 0.50.
	orders := decimal.Zero
	for _, o := range ms.Orders {
		if o.Side == exchange.Buy {
			orders = orders.Add(o.Price.Mul(o.Size.Sub(o.Matched)))
		}
	}
	if !ms.OrdersAtRisk.Equal(orders) || !ms.AtRisk.Equal(orders.Add(dec("5"))) {
		t.Errorf("at risk %s (orders %s), want orders %s + position 5", ms.AtRisk, ms.OrdersAtRisk, orders)
	}

	// Selling the 10 back realizes the difference.
	var sell *OrderStatus
	for i, o := range ms.Orders {
		if o.Side == exchange.Sell && o.Outcome == strategy.Yes {
			sell = &ms.Orders[i]
		}
	}
	if sell == nil {
		t.Fatalf("no SELL of the YES held among %+v", ms.Orders)
	}
	r.v.fill("yes", exchange.Sell, sell.Size.String())
	r.nextCycle(t)
	ms = r.l.Status().Markets[0]
	want := sell.Price.Sub(dec("0.48")).Mul(sell.Size)
	if !ms.RealizedPnL.Equal(want) || !ms.MarkedPnL.Equal(want) {
		t.Errorf("after selling %s at %s: realized %s marked %s, want both %s", sell.Size, sell.Price, ms.RealizedPnL, ms.MarkedPnL, want)
	}
}

// The last error of a market (a refusal, a failed batch) and of a cycle
// stays in the status with its time.
func TestLoopStatusLastErrors(t *testing.T) {
	r := newRig(t, nil, nil)
	if err := r.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.cycle(t)
	if st := r.l.Status(); st.Markets[0].LastError != "" || st.LastError != "" {
		t.Fatalf("errors before any: %q, %q", st.Markets[0].LastError, st.LastError)
	}
	r.v.refuse = "not enough balance"
	r.v.fill("yes", exchange.Buy, "10") // the loop replaces the filled bid: a new order, refused
	r.nextCycle(t)
	refusedAt := r.clock.Now()
	ms := r.l.Status().Markets[0]
	if !strings.Contains(ms.LastError, "not enough balance") || !ms.LastErrorAt.Equal(refusedAt) {
		t.Fatalf("last error %q at %s, want the refusal at %s", ms.LastError, ms.LastErrorAt, refusedAt)
	}

	// A cycle that fails as a whole: the journal refuses the intents.
	r.v.refuse = ""
	r.j.failIntents = errors.New("disk full")
	r.clock.Advance(time.Second)
	r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
	r.v.setBook("no", "0.48", "0.52", r.clock.Now())
	if err := r.l.Cycle(context.Background()); err == nil {
		t.Fatal("cycle succeeded with a failing journal")
	}
	st := r.l.Status()
	if !strings.Contains(st.LastError, "disk full") || !st.LastErrorAt.Equal(r.clock.Now()) || st.Tally.CycleErrors != 1 {
		t.Fatalf("cycle error %q at %s (%d cycle errors), want the journal's at %s", st.LastError, st.LastErrorAt, st.Tally.CycleErrors, r.clock.Now())
	}
	// The market's last error stays until a newer one.
	if st.Markets[0].LastError != ms.LastError {
		t.Errorf("market error %q, want the earlier %q kept", st.Markets[0].LastError, ms.LastError)
	}
}

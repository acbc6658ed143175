package loop

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Issue 20 point 8: a SELL intent whose answer never came (the previous
// process sent it, then died) may reach the exchange any moment within its
// grace. Its shares count as offered: the restarted loop must not offer
// them again (the exchange would refuse the second SELL: "not enough
// balance").
func TestLoopInflightSellKeepsItsShares(t *testing.T) {
	r := newRig(t, nil, nil)
	r.j.pos["yes"] = decimal.NewFromInt(10)
	inflight := Intent{Hash: "0xsell", ConditionID: "0xcond", TokenID: "yes", Outcome: strategy.Yes, Side: exchange.Sell,
		Price: decimal.RequireFromString("0.52"), Size: decimal.NewFromInt(10)}
	if err := r.j.RecordIntents([]Intent{inflight}, lt0); err != nil {
		t.Fatal(err)
	}
	r2 := newRigAllowSell(t, r.v, r.j)
	r2.clock.Advance(2 * time.Second)
	r2.v.setBook("yes", "0.48", "0.52", r2.clock.Now())
	r2.v.setBook("no", "0.48", "0.52", r2.clock.Now())
	if err := r2.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r2.cycle(t)
	sold := decimal.Zero
	r.v.mu.Lock()
	for _, o := range r.v.orders {
		if o.AssetID == "yes" && o.Side == exchange.Sell {
			sold = sold.Add(o.OriginalSize)
		}
	}
	r.v.mu.Unlock()
	if sold.IsPositive() {
		t.Fatalf("the restarted loop offered %s YES shares while a SELL of all 10 held is in flight (within its grace)", sold)
	}
	// Its grace over and the intent never arrived: the shares are offered again.
	r2.clock.Advance(31 * time.Second)
	r2.v.setBook("yes", "0.48", "0.52", r2.clock.Now())
	r2.v.setBook("no", "0.48", "0.52", r2.clock.Now())
	r2.cycle(t)
	r2.cycle(t)
	if st := r.j.orders["0xsell"].State; st != JFailed {
		t.Fatalf("the lost SELL intent is %s after its grace, want failed", st)
	}
	r.v.mu.Lock()
	for _, o := range r.v.orders {
		if o.AssetID == "yes" && o.Side == exchange.Sell && o.Status == exchange.StatusLive {
			sold = sold.Add(o.OriginalSize)
		}
	}
	r.v.mu.Unlock()
	if !sold.Equal(decimal.NewFromInt(10)) {
		t.Fatalf("after the lost SELL's grace the loop offers %s YES shares, want the 10 held", sold)
	}
}

// newRigAllowSell is newRig with a bands model that sells what it holds first.
func newRigAllowSell(t *testing.T, v *fakeVenue, j *memJournal) *loopRig {
	t.Helper()
	r := newRig(t, v, j)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}, AllowSell: true})
	if err != nil {
		t.Fatal(err)
	}
	r.l.cfg.Params.Model = model
	for _, mr := range r.l.markets {
		mr.q.Model = model
	}
	return r
}

package loop

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// Regression tests for what the daemon's end-to-end tests found: a fill
// between the last order read and a cancel was lost, a market placed new
// orders although its cancel failed, the kill switch cancelled only once,
// and the total limits did not see other markets' orders of the same cycle.

// hookVenue lets a test act just before a cancel reaches the fake exchange,
// or make cancels fail.
type hookVenue struct {
	*fakeVenue
	beforeCancel func(id string)
	cancelErr    error
	cancels      int // calls, failed ones included
}

func (h *hookVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	h.cancels++
	if h.cancelErr != nil {
		return nil, h.cancelErr
	}
	if h.beforeCancel != nil {
		h.beforeCancel(id)
	}
	return h.fakeVenue.CancelOrder(ctx, id)
}

func newHookRig(t *testing.T, markets []strategy.Market, chk *risk.Checker) (*hookVenue, *memJournal, *clocktest.Clock, *risk.KillSwitch, *Loop) {
	t.Helper()
	fv := newFakeVenue()
	for _, m := range markets {
		fv.setBook(m.TokenIDs[strategy.Yes], "0.48", "0.52", lt0)
		fv.setBook(m.TokenIDs[strategy.No], "0.48", "0.52", lt0)
	}
	hv := &hookVenue{fakeVenue: fv}
	j := newMemJournal()
	clock := clocktest.New(lt0)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 3})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Config{Markets: markets, Estimators: strategy.DefaultEstimatorParams(), Kill: kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}, Checker: chk}},
		hv, &fakeSigner{}, j, clock, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return hv, j, clock, kill, l
}

// move sets every market's books around a new mid, so every quote moves.
func move(v *fakeVenue, clock *clocktest.Clock, markets []strategy.Market, bid, ask string) {
	clock.Advance(time.Second)
	for _, m := range markets {
		v.setBook(m.TokenIDs[strategy.Yes], bid, ask, clock.Now())
		v.setBook(m.TokenIDs[strategy.No], bid, ask, clock.Now())
	}
}

func mustCycle(t *testing.T, l *Loop) {
	t.Helper()
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestLoopCancelBooksFillSinceLastRead(t *testing.T) {
	ms := []strategy.Market{testMarket()}
	v, j, clock, _, l := newHookRig(t, ms, nil)
	mustCycle(t, l)
	if v.placed != 2 {
		t.Fatalf("placed %d, want 2", v.placed)
	}
	var filled string
	v.beforeCancel = func(id string) {
		if filled != "" {
			return
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		o := v.orders[id]
		o.SizeMatched = o.SizeMatched.Add(decimal.NewFromInt(4)) // a taker, after our read
		filled = o.AssetID
	}
	move(v.fakeVenue, clock, ms, "0.58", "0.62")
	mustCycle(t, l)
	if filled == "" {
		t.Fatal("no order was cancelled")
	}
	if got := j.pos[filled]; !got.Equal(decimal.NewFromInt(4)) {
		t.Fatalf("journal position in %s is %s, want the 4 matched just before the cancel", filled, got)
	}
	if len(j.fills) != 1 {
		t.Fatalf("%d fills journaled, want 1", len(j.fills))
	}
	if n := j.count(JCanceled); n != 2 {
		t.Fatalf("%d orders cancelled in the journal, want 2", n)
	}
	if v.placed != 2 {
		t.Fatalf("%d orders placed in the cycle that found an unplanned fill, want none", v.placed-2)
	}
	move(v.fakeVenue, clock, ms, "0.58", "0.62")
	mustCycle(t, l)
	if v.placed != 4 {
		t.Fatalf("placed %d in all, want 4 once the market is planned again", v.placed)
	}
}

func TestLoopUnconfirmedCancelHoldsMarketPlaces(t *testing.T) {
	ms := []strategy.Market{testMarket()}
	v, j, clock, _, l := newHookRig(t, ms, nil)
	mustCycle(t, l)
	v.cancelErr = &exchange.APIError{Area: "clob", Status: 500, Message: "internal_error: injected fault"}
	move(v.fakeVenue, clock, ms, "0.58", "0.62")
	_ = l.Cycle(context.Background())
	if v.placed != 2 {
		t.Fatalf("%d new orders placed while the market's cancels failed, want 0", v.placed-2)
	}
	if nf, _ := j.NonFinal(); len(nf) != 2 {
		t.Fatalf("%d non-final journal orders, want the 2 uncancelled ones", len(nf))
	}
	v.cancelErr = nil
	move(v.fakeVenue, clock, ms, "0.58", "0.62")
	mustCycle(t, l)
	if v.placed != 4 || v.live() != 2 {
		t.Fatalf("after the cancels went through: placed %d (want 4), live %d (want 2)", v.placed, v.live())
	}
}

func TestLoopKillSwitchCancelsUntilNoneLive(t *testing.T) {
	ms := []strategy.Market{testMarket()}
	v, j, clock, kill, l := newHookRig(t, ms, nil)
	mustCycle(t, l)
	kill.Halt("test", clock.Now())
	v.cancelErr = &exchange.APIError{Area: "clob", Status: 503, Message: "maintenance"}
	move(v.fakeVenue, clock, ms, "0.48", "0.52")
	_ = l.Cycle(context.Background())
	if v.live() != 2 {
		t.Fatalf("%d live, want 2 (cancels refused)", v.live())
	}
	v.cancelErr = nil
	move(v.fakeVenue, clock, ms, "0.48", "0.52")
	mustCycle(t, l)
	if v.live() != 0 {
		t.Fatalf("%d orders still live a cycle after the exchange accepted cancels again", v.live())
	}
	if nf, _ := j.NonFinal(); len(nf) != 0 {
		t.Fatalf("%d non-final journal orders", len(nf))
	}
	if v.placed != 2 {
		t.Fatalf("placed %d orders while halted", v.placed-2)
	}
}

// TestLoopThrottledCancelsWait: after a 429 on a cancel the loop sends no
// other cancel until the Retry-After has passed (the client would make each
// of them sleep through it, stalling the cycle), and then sends them.
func TestLoopThrottledCancelsWait(t *testing.T) {
	ms := []strategy.Market{testMarket()}
	v, _, clock, _, l := newHookRig(t, ms, nil)
	mustCycle(t, l)
	v.cancelErr = &exchange.APIError{Area: "clob", Endpoint: "DELETE /order", Status: 429, RetryAfter: 30 * time.Second}
	move(v.fakeVenue, clock, ms, "0.58", "0.62")
	_ = l.Cycle(context.Background())
	if v.cancels != 1 {
		t.Fatalf("%d cancels sent in the cycle of the 429, want 1", v.cancels)
	}
	v.cancelErr = nil
	move(v.fakeVenue, clock, ms, "0.58", "0.62") // +1 s
	_ = l.Cycle(context.Background())
	if v.cancels != 1 || v.live() != 2 {
		t.Fatalf("%d cancels sent, %d live, 1 s into a 30 s Retry-After; want 1 and 2", v.cancels, v.live())
	}
	clock.Advance(30 * time.Second)
	move(v.fakeVenue, clock, ms, "0.58", "0.62")
	mustCycle(t, l)
	if v.cancels != 3 {
		t.Fatalf("%d cancels sent after the Retry-After, want 3", v.cancels)
	}
}

// TestLoopThrottledPlacesWait: after a 429 on a placement batch the loop
// sends no batch until the Retry-After has passed; the intents it holds
// back are marked failed (they never left).
func TestLoopThrottledPlacesWait(t *testing.T) {
	ms := []strategy.Market{testMarket()}
	v := newFakeVenue()
	v.setBook("yes", "0.48", "0.52", lt0)
	v.setBook("no", "0.48", "0.52", lt0)
	tv := &throttleVenue{fakeVenue: v, err: &exchange.APIError{Area: "clob", Endpoint: "POST /orders", Status: 429, RetryAfter: 30 * time.Second}}
	j := newMemJournal()
	clock := clocktest.New(lt0)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02, 0.03}, Sizes: []float64{10, 10}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Config{Markets: ms, Estimators: strategy.DefaultEstimatorParams(), MaxBatch: 1,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}}, tv, &fakeSigner{}, j, clock, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = l.Cycle(context.Background())
	if tv.batches != 1 {
		t.Fatalf("%d batches sent in the cycle of the 429, want 1", tv.batches)
	}
	if n := j.count(JFailed); n < 1 {
		t.Fatalf("%d intents marked failed, want the ones held back", n)
	}
	tv.err = nil
	clock.Advance(31 * time.Second)
	v.setBook("yes", "0.48", "0.52", clock.Now())
	v.setBook("no", "0.48", "0.52", clock.Now())
	mustCycle(t, l)
	if tv.batches < 2 || v.placed == 0 {
		t.Fatalf("after the Retry-After: %d batches, %d placed", tv.batches, v.placed)
	}
}

// throttleVenue answers err to every placement while it is set.
type throttleVenue struct {
	*fakeVenue
	err     error
	batches int
}

func (v *throttleVenue) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	v.batches++
	if v.err != nil {
		return nil, v.err
	}
	return v.fakeVenue.PlaceOrders(ctx, items)
}

func TestLoopTotalLimitsSeeThisCyclesOrders(t *testing.T) {
	m2 := testMarket()
	m2.ConditionID, m2.TokenIDs = "0xcond2", [2]string{"yes2", "no2"}
	ms := []strategy.Market{testMarket(), m2}
	chk, err := risk.NewChecker(risk.Limits{MaxOpenTotal: 3, MaxTotalShares: decimal.NewFromInt(25)})
	if err != nil {
		t.Fatal(err)
	}
	v, _, _, _, l := newHookRig(t, ms, chk)
	mustCycle(t, l)
	if v.placed != 3 {
		t.Fatalf("placed %d orders over two markets with max open total 3", v.placed)
	}
}

// cancelOnIntents ends the context right after intents are journaled, as
// a SIGTERM arriving between the journal write and the send would.
type cancelOnIntents struct {
	*memJournal
	cancel context.CancelFunc
}

func (c *cancelOnIntents) RecordIntents(in []Intent, now time.Time) error {
	err := c.memJournal.RecordIntents(in, now)
	c.cancel()
	return err
}

func TestLoopStopBeforeSendFailsIntents(t *testing.T) {
	ms := []strategy.Market{testMarket()}
	v := newFakeVenue()
	v.setBook("yes", "0.48", "0.52", lt0)
	v.setBook("no", "0.48", "0.52", lt0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := &cancelOnIntents{memJournal: newMemJournal(), cancel: cancel}
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Config{Markets: ms, Estimators: strategy.DefaultEstimatorParams(),
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}}, v, &fakeSigner{}, j, clocktest.New(lt0), zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = l.Cycle(ctx)
	if v.placed != 0 {
		t.Fatalf("%d orders sent after the stop", v.placed)
	}
	if n := j.count(JFailed); n != 2 {
		t.Fatalf("%d intents marked failed, want the 2 that were never sent", n)
	}
	if err := l.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if nf, _ := j.NonFinal(); len(nf) != 0 {
		t.Fatalf("%d non-final journal orders after shutdown", len(nf))
	}
}

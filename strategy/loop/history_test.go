package loop

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// bookedVenue is a fakeVenue whose books hold our live orders (as a real
// book does), so that no order looks traded to markSuspects, and which
// reports a read budget of reads (ReadBudgeter).
type bookedVenue struct {
	*fakeVenue
	reads int
}

func (b *bookedVenue) ReadBudget(time.Time) int { return b.reads }

func (b *bookedVenue) Books(ctx context.Context, ids []string) ([]exchange.OrderBook, error) {
	books, err := b.fakeVenue.Books(ctx, ids)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range books {
		bk := &books[i]
		for _, o := range b.orders {
			if o.AssetID != bk.AssetID || o.Status != exchange.StatusLive || o.Side != exchange.Buy {
				continue
			}
			rem := o.OriginalSize.Sub(o.SizeMatched)
			found := false
			for j := range bk.Bids {
				if bk.Bids[j].Price.Equal(o.Price) {
					bk.Bids[j].Size = bk.Bids[j].Size.Add(rem)
					found = true
				}
			}
			if !found {
				bk.Bids = append(bk.Bids, exchange.PriceLevel{Price: o.Price, Size: rem})
			}
		}
	}
	return books, nil
}

func (b *bookedVenue) orderReads() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls["order"]
}

// fakeHistory is a TradeHistory the test writes to.
type fakeHistory struct {
	mu     sync.Mutex
	trades []OwnTrade
	calls  int
}

func (h *fakeHistory) add(t OwnTrade) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trades = append(h.trades, t)
}

func (h *fakeHistory) OwnTrades(_ context.Context, since time.Time) ([]OwnTrade, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	var out []OwnTrade
	for _, t := range h.trades {
		if since.IsZero() || t.Time.After(since) {
			out = append(out, t)
		}
	}
	return out, nil
}

// newHistRig is a loop over n markets on a bookedVenue, with cfg changed by
// mut; it is not started.
func newHistRig(t *testing.T, n int, v *bookedVenue, j *memJournal, clock *clocktest.Clock, mut func(*Config)) *Loop {
	t.Helper()
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 100})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Markets: nMarkets(n), Estimators: strategy.DefaultEstimatorParams(), Kill: kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}}
	if mut != nil {
		mut(&cfg)
	}
	l, err := New(cfg, v, &fakeSigner{}, j, clock, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newBookedVenue(n, reads int) *bookedVenue {
	fv := newFakeVenue()
	for _, m := range nMarkets(n) {
		fv.setBook(m.TokenIDs[strategy.Yes], "0.48", "0.52", lt0)
		fv.setBook(m.TokenIDs[strategy.No], "0.48", "0.52", lt0)
	}
	return &bookedVenue{fakeVenue: fv, reads: reads}
}

// Issue 11 point 2: with many orders and nothing suggesting a fill, the
// loop reads orders back within its share of the read budget, not every
// order (or 40) per cycle.
func TestLoopOrderReadsWithinReadBudget(t *testing.T) {
	const markets = 50 // 100 live orders
	v := newBookedVenue(markets, 100)
	clock := clocktest.New(lt0)
	l := newHistRig(t, markets, v, newMemJournal(), clock, nil)
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if live := v.live(); live != 2*markets {
		t.Fatalf("%d live orders, want %d", live, 2*markets)
	}
	for c := range 5 {
		clock.Advance(time.Second)
		before := v.orderReads()
		if err := l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
		// 10% of a budget of 100 reads
		if got := v.orderReads() - before; got > 10 {
			t.Fatalf("cycle %d read %d orders back with a read budget of 100 (share 0.1): want at most 10", c, got)
		}
	}
	// A budget that is spent: no round-robin read at all.
	v.reads = 0
	clock.Advance(time.Second)
	before := v.orderReads()
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := v.orderReads() - before; got != 0 {
		t.Fatalf("read %d orders with no read budget left and no evidence, want 0", got)
	}
}

// Issue 11 point 2: a fill is found through the trade history and booked
// once, however often the history shows the trade, while the round robin
// reads nothing.
func TestLoopFillFoundInTradeHistoryBookedOnce(t *testing.T) {
	const markets = 4
	v := newBookedVenue(markets, 1) // round robin: 0.1 × 1 → 0 reads; evidence: 1
	clock := clocktest.New(lt0)
	h := &fakeHistory{}
	j := newMemJournal()
	l := newHistRig(t, markets, v, j, clock, func(c *Config) { c.History = h })
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := v.fill("yes2", exchange.Buy, "4") // the book still shows our remaining size: no suspicion
	if id == "" {
		t.Fatal("no order to fill")
	}
	for range 2 {
		clock.Advance(time.Second)
		if err := l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := j.pos["yes2"]; !got.IsZero() {
		t.Fatalf("fill booked (%s) without evidence and without round-robin reads", got)
	}
	h.add(OwnTrade{ID: "t1", OrderID: id, Size: decimal.NewFromInt(4), Time: clock.Now()})
	for range 3 { // the overlap shows t1 again
		clock.Advance(time.Second)
		if err := l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := j.pos["yes2"]; !got.Equal(decimal.NewFromInt(4)) {
		t.Fatalf("position after the trade %s, want 4", got)
	}
	if len(j.fills) != 1 {
		t.Fatalf("%d fills booked, want 1", len(j.fills))
	}
	if !j.cursor.Equal(h.trades[0].Time) {
		t.Fatalf("trade cursor %s, want %s", j.cursor, h.trades[0].Time)
	}
}

// Issue 11 point 5: an intent whose answer never came is not declared
// failed at restart: it stays an intent (counted as possibly live) until its
// grace is over; then it is read again: found live when its placement
// arrived late, failed when it never did.
func TestLoopInflightIntentWaitsForGrace(t *testing.T) {
	r := newRig(t, nil, nil)
	late := Intent{Hash: "0xlate", ConditionID: "0xcond", TokenID: "yes", Outcome: strategy.Yes, Side: exchange.Buy,
		Price: decimal.RequireFromString("0.40"), Size: decimal.NewFromInt(10)}
	lost := late
	lost.Hash, lost.Price = "0xlost", decimal.RequireFromString("0.39")
	if err := r.j.RecordIntents([]Intent{late, lost}, lt0); err != nil {
		t.Fatal(err)
	}

	r2 := newRig(t, r.v, r.j)
	r2.clock.Advance(2 * time.Second)
	if err := r2.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"0xlate", "0xlost"} {
		if st := r.j.orders[h].State; st != JIntent {
			t.Fatalf("in-flight intent %s is %s after the restart's reconciliation, want intent (its grace is not over)", h, st)
		}
	}
	r2.cycle(t)
	st := r2.l.Status()
	var intents []risk.Order
	var others []risk.Order
	for _, o := range st.Markets[0].Orders {
		ro := risk.Order{Outcome: int(o.Outcome), Side: o.Side, Price: o.Price, Size: o.Size.Sub(o.Matched)}
		if o.State == JIntent {
			intents = append(intents, ro)
		} else {
			others = append(others, ro)
		}
	}
	if len(intents) != 2 {
		t.Fatalf("status lists %d intents in flight, want 2", len(intents))
	}
	without := risk.MarketTotals(riskFair(r2.l.markets[0]), [2]decimal.Decimal{}, others).AtRisk
	if !st.Markets[0].OrdersAtRisk.GreaterThan(without) {
		t.Fatalf("orders at risk %s: the intents in flight are not counted (%s without them)", st.Markets[0].OrdersAtRisk, without)
	}

	// The late placement reaches the exchange within its grace.
	r.v.mu.Lock()
	r.v.orders["0xlate"] = &exchange.Order{ID: "0xlate", Status: exchange.StatusLive, AssetID: "yes", Side: exchange.Buy,
		Price: late.Price, OriginalSize: late.Size}
	r.v.mu.Unlock()
	r2.clock.Advance(30 * time.Second) // the default grace (30 s) is over
	r2.v.setBook("yes", "0.48", "0.52", r2.clock.Now())
	r2.v.setBook("no", "0.48", "0.52", r2.clock.Now())
	r2.cycle(t)
	if st := r.j.orders["0xlost"].State; st != JFailed {
		t.Fatalf("intent that never arrived is %s after its grace, want failed", st)
	}
	// found live, and then cancelled by the plan (its price is not quoted)
	if st := r.j.orders["0xlate"].State; st == JFailed || st == JIntent {
		t.Fatalf("intent that arrived late is %s after its grace, want found (live, or cancelled since)", st)
	}
	if r.v.orders["0xlate"].Status == exchange.StatusLive && r.j.orders["0xlate"].State.Final() {
		t.Fatal("the late order is live on the exchange and final in the journal")
	}
}

// Issue 11 point 5: a trade naming an order the journal marked failed
// brings it back (fills booked, state corrected), and, live, it is
// cancelled under state.unknown_orders = cancel.
func TestLoopTradeRevivesFailedOrder(t *testing.T) {
	for _, policy := range []UnknownPolicy{UnknownCancel, UnknownAdopt} {
		t.Run(string(policy), func(t *testing.T) {
			v := newBookedVenue(1, 100)
			clock := clocktest.New(lt0)
			j := newMemJournal()
			in := Intent{Hash: "0xgone", ConditionID: "0xcond0", TokenID: "yes0", Outcome: strategy.Yes, Side: exchange.Buy,
				Price: decimal.RequireFromString("0.40"), Size: decimal.NewFromInt(10)}
			if err := j.RecordIntents([]Intent{in}, lt0); err != nil {
				t.Fatal(err)
			}
			j.orders["0xgone"].State = JFailed // given up by an earlier process
			v.orders["0xgone"] = &exchange.Order{ID: "0xgone", Status: exchange.StatusLive, AssetID: "yes0", Side: exchange.Buy,
				Price: in.Price, OriginalSize: in.Size, SizeMatched: decimal.NewFromInt(3)}
			h := &fakeHistory{}
			h.add(OwnTrade{ID: "t9", OrderID: "0xgone", Size: decimal.NewFromInt(3), Time: lt0.Add(time.Second)})
			clock.Advance(time.Minute)
			l := newHistRig(t, 1, v, j, clock, func(c *Config) { c.History, c.Unknown = h, policy })
			if err := l.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := j.pos["yes0"]; !got.Equal(decimal.NewFromInt(3)) {
				t.Fatalf("position %s after the revival, want 3 (the failed order's fill)", got)
			}
			st := j.orders["0xgone"].State
			switch policy {
			case UnknownCancel:
				if st != JCanceled || v.orders["0xgone"].Status != exchange.StatusCanceled {
					t.Fatalf("revived order: journal %s, exchange %s; want canceled", st, v.orders["0xgone"].Status)
				}
			default:
				if st != JPartiallyFilled {
					t.Fatalf("revived order is %s in the journal, want partially_filled", st)
				}
			}
			// Shown again by the history: booked once.
			clock.Advance(time.Second)
			if err := l.Cycle(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(j.fills) != 1 {
				t.Fatalf("%d fills booked, want 1", len(j.fills))
			}
		})
	}
}

// With a trade history the round robin is slow even when the budget is
// ample: each order without evidence is read about once per
// historyRoundRobinAge, not every cycle (issue 11 measured 200 reads in
// 25 s for 8 live orders).
func TestLoopHistoryMakesRoundRobinSlow(t *testing.T) {
	const markets = 4 // 8 live orders
	v := newBookedVenue(markets, 10_000)
	clock := clocktest.New(lt0)
	l := newHistRig(t, markets, v, newMemJournal(), clock, func(c *Config) { c.History = &fakeHistory{} })
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := v.orderReads()
	for range 25 {
		clock.Advance(time.Second)
		if err := l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// each of the 8 read at most once per 10 s: 3 rounds in 25 s
	if got := v.orderReads() - before; got > 3*2*markets {
		t.Fatalf("%d order reads in 25 cycles of 1 s for %d live orders, want at most %d", got, 2*markets, 3*2*markets)
	}
}

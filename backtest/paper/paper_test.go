package paper

import (
	"context"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

// newPaperSetup returns a venue over a fake exchange whose YES book is
// 0.50 × 100 / 0.52 × 100 and NO book 0.48 × 100 / 0.50 × 100, and whose
// clock starts at t0.
func newPaperSetup(t *testing.T, mode fillmodel.Mode, mut func(*Config)) (*Venue, *fixture.FakeExchange, *fixture.Clock) {
	t.Helper()
	f := fixture.NewFakeExchange()
	clk := &fixture.Clock{T: fixture.T0}
	f.SetBook(t, fixture.Yes, fixture.Market, "0.01", fixture.T0, fixture.Lv(t, "0.5:100", "0.49:50"), fixture.Lv(t, "0.52:100"))
	f.SetBook(t, fixture.No, fixture.Market, "0.01", fixture.T0, fixture.Lv(t, "0.48:100"), fixture.Lv(t, "0.5:100"))
	cfg := Config{
		Markets: []Market{{ConditionID: fixture.Market, Tokens: [2]string{fixture.Yes, fixture.No}, Tick: fixture.Dec("0.01"), MinSize: fixture.Dec("5")}},
		Matcher: fillmodel.MatcherConfig{Mode: mode, Seed: 1},
		Now:     clk.Now,
	}
	if mut != nil {
		mut(&cfg)
	}
	v, err := NewVenue(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v, f, clk
}

func mustBooks(t *testing.T, v *Venue, toks ...string) []exchange.OrderBook {
	t.Helper()
	bs, err := v.Books(context.Background(), toks)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

func mustPlace(t *testing.T, v *Venue, items ...exchange.PlacementItem) []exchange.PlacementResult {
	t.Helper()
	res, err := v.PlaceOrders(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func mustOrder(t *testing.T, v *Venue, id string) *exchange.Order {
	t.Helper()
	o, err := v.Order(context.Background(), id)
	if err != nil {
		t.Fatalf("Order(%s): %v", id, err)
	}
	return o
}

func TestPaperPlaceValidation(t *testing.T) {
	v, _, _ := newPaperSetup(t, fillmodel.ModeQueue, nil)
	mustBooks(t, v, fixture.Yes, fixture.No)
	bad := func(mut func(*exchange.PlacementItem)) exchange.PlacementItem {
		it := fixture.Item(fixture.Yes, exchange.Buy, "0.45", "10")
		mut(&it)
		return it
	}
	tests := []struct {
		name string
		item exchange.PlacementItem
		want string // "" means accepted
	}{
		{"buy", fixture.Item(fixture.Yes, exchange.Buy, "0.45", "10"), ""},
		{"sell", fixture.Item(fixture.No, exchange.Sell, "0.55", "12.5"), ""},
		{"gtd", bad(func(it *exchange.PlacementItem) { it.OrderType = exchange.GTD }), ""},
		{"unknown token", fixture.Item("999", exchange.Buy, "0.45", "10"), "unknown token"},
		{"side", bad(func(it *exchange.PlacementItem) { it.Order.Side = "HOLD" }), "side"},
		{"fok", bad(func(it *exchange.PlacementItem) { it.OrderType = exchange.FOK }), "FOK is not supported"},
		{"zero amount", bad(func(it *exchange.PlacementItem) { it.Order.MakerAmount = "0" }), "invalid amounts"},
		{"text amount", bad(func(it *exchange.PlacementItem) { it.Order.TakerAmount = "1e6" }), "invalid amounts"},
		{"off tick", fixture.Item(fixture.Yes, exchange.Buy, "0.455", "10"), "tick grid"},
		{"price 1", fixture.Item(fixture.Yes, exchange.Buy, "1", "10"), "outside"},
		{"price above 1", bad(func(it *exchange.PlacementItem) { it.Order.MakerAmount = "20000000" }), "price"},
		{"below min size", fixture.Item(fixture.Yes, exchange.Buy, "0.45", "4.99"), "below the minimum"},
		{"inexact price", bad(func(it *exchange.PlacementItem) { it.Order.MakerAmount, it.Order.TakerAmount = "1000000", "3000000" }), "6 decimals"},
	}
	seq := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustPlace(t, v, tt.item)
			if len(res) != 1 {
				t.Fatalf("%d results", len(res))
			}
			r := res[0]
			if tt.want == "" {
				seq++
				if !r.Success || r.Status != exchange.PlaceLive || r.OrderID != "paper-"+strconv.Itoa(seq) {
					t.Fatalf("result %+v, want a live paper-%d", r, seq)
				}
				o := mustOrder(t, v, r.OrderID)
				if o.Status != exchange.StatusLive || !o.SizeMatched.IsZero() || o.AssetID != tt.item.Order.TokenID || o.Side != tt.item.Order.Side {
					t.Errorf("order %+v", o)
				}
				return
			}
			if r.Success || !strings.Contains(r.ErrorMsg, tt.want) {
				t.Errorf("result %+v, want a refusal containing %q", r, tt.want)
			}
		})
	}
	st := v.Stats()
	if st.Placed != seq || st.Refused != len(tests)-seq {
		t.Errorf("stats %+v", st)
	}
}

func TestPaperBatchLimits(t *testing.T) {
	v, _, _ := newPaperSetup(t, fillmodel.ModeQueue, func(c *Config) { c.MaxBatch = 2 })
	items := []exchange.PlacementItem{fixture.Item(fixture.Yes, exchange.Buy, "0.4", "10"), fixture.Item(fixture.Yes, exchange.Buy, "0.41", "10"), fixture.Item(fixture.Yes, exchange.Buy, "0.42", "10")}
	if _, err := v.PlaceOrders(context.Background(), items); !errors.Is(err, exchange.ErrBadRequest) {
		t.Errorf("3 orders with MaxBatch 2: err %v", err)
	}
	if _, err := v.PlaceOrders(context.Background(), nil); !errors.Is(err, exchange.ErrBadRequest) {
		t.Errorf("empty batch: err %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.PlaceOrders(ctx, items[:1]); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err %v", err)
	}
	if got := v.Budget(fixture.T0); got != (exchange.Budget{Orders: 7, Cancels: 9}) {
		t.Errorf("budget %+v does not mirror the source", got)
	}
}

// TestPaperQueueFills walks one bid through the queue: the trades the venue
// reads eat the 100 shares ahead of it, then fill it.
func TestPaperQueueFills(t *testing.T) {
	v, f, clk := newPaperSetup(t, fillmodel.ModeQueue, nil)
	mustBooks(t, v, fixture.Yes, fixture.No)
	id := mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.5", "10"))[0].OrderID

	// A taker sells 105 at 0.50: 100 ahead of us, then 5 of ours.
	clk.Add(time.Second)
	f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "105", clk.Now(), "0xa")
	f.SetBook(t, fixture.Yes, fixture.Market, "0.01", clk.Now(), fixture.Lv(t, "0.49:50"), fixture.Lv(t, "0.52:100"))
	books := mustBooks(t, v, fixture.Yes, fixture.No)
	o := mustOrder(t, v, id)
	if o.Status != exchange.StatusLive || !o.SizeMatched.Equal(fixture.Dec("5")) || !o.OriginalSize.Equal(fixture.Dec("10")) || !o.Price.Equal(fixture.Dec("0.5")) {
		t.Fatalf("after the first trade: %+v", o)
	}
	// The book the loop gets shows our remaining 5 at 0.50 as the best bid.
	if b := books[0]; b.AssetID != fixture.Yes || len(b.Bids) != 2 || !b.Bids[0].Price.Equal(fixture.Dec("0.5")) || !b.Bids[0].Size.Equal(fixture.Dec("5")) {
		t.Errorf("book with our order: %+v", b.Bids)
	}

	// The same trade read again is not fed twice; a new one fills the rest.
	clk.Add(time.Second)
	mustBooks(t, v, fixture.Yes, fixture.No)
	if o := mustOrder(t, v, id); !o.SizeMatched.Equal(fixture.Dec("5")) {
		t.Fatalf("a trade read twice filled again: %+v", o)
	}
	f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "7", clk.Now(), "0xb")
	clk.Add(time.Second)
	mustBooks(t, v, fixture.Yes, fixture.No)
	o = mustOrder(t, v, id)
	if o.Status != exchange.StatusMatched || !o.SizeMatched.Equal(fixture.Dec("10")) {
		t.Fatalf("after the second trade: %+v", o)
	}
	st := v.Stats()
	if st.Fills != 2 || st.FilledSize != 10*exchange.FixedScale || !st.FilledNotional.Equal(fixture.Dec("5")) || st.Trades != 2 || st.Open != 0 {
		t.Errorf("stats %+v", st)
	}
	// A matched order cannot be cancelled.
	res, err := v.CancelOrder(context.Background(), id)
	if err != nil || len(res.Canceled) != 0 || res.NotCanceled[id] != "order already matched" {
		t.Errorf("cancel of a matched order: %+v %v", res, err)
	}
}

func TestPaperModesOnATouch(t *testing.T) {
	// A trade at our price for less than the queue ahead: only the
	// optimistic mode fills.
	for _, tt := range []struct {
		mode fillmodel.Mode
		want string
	}{{fillmodel.ModeQueue, "0"}, {fillmodel.ModeConservative, "0"}, {fillmodel.ModeOptimistic, "10"}} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			v, f, clk := newPaperSetup(t, tt.mode, nil)
			mustBooks(t, v, fixture.Yes)
			id := mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.5", "10"))[0].OrderID
			clk.Add(time.Second)
			f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "20", clk.Now(), "0xa")
			mustBooks(t, v, fixture.Yes)
			if o := mustOrder(t, v, id); !o.SizeMatched.Equal(fixture.Dec(tt.want)) {
				t.Errorf("matched %s, want %s", o.SizeMatched, tt.want)
			}
		})
	}
}

func TestPaperCrossAndTaker(t *testing.T) {
	v, f, clk := newPaperSetup(t, fillmodel.ModeQueue, nil)
	mustBooks(t, v, fixture.Yes)
	id := mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.51", "10"))[0].OrderID
	// The ask comes down to our bid: filled by the cross.
	clk.Add(time.Second)
	f.SetBook(t, fixture.Yes, fixture.Market, "0.01", clk.Now(), fixture.Lv(t, "0.5:100"), fixture.Lv(t, "0.51:30"))
	mustBooks(t, v, fixture.Yes)
	if o := mustOrder(t, v, id); o.Status != exchange.StatusMatched {
		t.Errorf("crossed bid: %+v", o)
	}
	// An order that crosses when placed takes liquidity at once.
	res := mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.52", "10"))
	if res[0].Status != exchange.PlaceMatched {
		t.Errorf("crossing order: %+v", res[0])
	}
	if st := v.Stats(); st.TakerFills != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestPaperCancel(t *testing.T) {
	for _, lat := range []time.Duration{0, 50 * time.Millisecond} {
		t.Run(lat.String(), func(t *testing.T) {
			v, _, clk := newPaperSetup(t, fillmodel.ModeQueue, func(c *Config) { c.Matcher.Latency.Cancel = fillmodel.Constant(lat) })
			mustBooks(t, v, fixture.Yes)
			id := mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.45", "10"))[0].OrderID
			res, err := v.CancelOrder(context.Background(), id)
			if err != nil || len(res.Canceled) != 1 || res.Canceled[0] != id {
				t.Fatalf("cancel: %+v %v", res, err)
			}
			clk.Add(lat)
			if o := mustOrder(t, v, id); o.Status != exchange.StatusCanceled {
				t.Errorf("after cancel: %+v", o)
			}
			res, err = v.CancelOrder(context.Background(), id)
			if err != nil || res.NotCanceled[id] != "order already canceled" {
				t.Errorf("second cancel: %+v %v", res, err)
			}
			if _, err := v.CancelOrder(context.Background(), "paper-99"); !errors.Is(err, exchange.ErrNotFound) {
				t.Errorf("unknown order: %v", err)
			}
			if _, err := v.Order(context.Background(), "0xhash"); !errors.Is(err, exchange.ErrNotFound) {
				t.Errorf("unknown order read: %v", err)
			}
			// Final orders are forgotten after KeepFinal.
			clk.Add(11 * time.Minute)
			mustBooks(t, v, fixture.Yes)
			if _, err := v.Order(context.Background(), id); !errors.Is(err, exchange.ErrNotFound) {
				t.Errorf("old cancelled order still readable: %v", err)
			}
			if st := v.Stats(); st.Cancels != 1 || st.OrdersRemembered != 0 || st.Open != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestPaperMergesOwnOrders(t *testing.T) {
	for _, hide := range []bool{false, true} {
		v, _, _ := newPaperSetup(t, fillmodel.ModeQueue, func(c *Config) { c.HideOwnOrders = hide })
		mustBooks(t, v, fixture.Yes)
		mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.5", "10"), fixture.Item(fixture.Yes, exchange.Buy, "0.495", "10"),
			fixture.Item(fixture.Yes, exchange.Sell, "0.51", "6"), fixture.Item(fixture.Yes, exchange.Sell, "0.6", "7"))
		b := mustBooks(t, v, fixture.Yes)[0]
		bids, asks := fmtLevels(b.Bids), fmtLevels(b.Asks)
		wantBids, wantAsks := "0.5:110 0.49:50", "0.51:6 0.52:100 0.6:7"
		if hide {
			wantBids, wantAsks = "0.5:100 0.49:50", "0.52:100"
		}
		// 0.495 is off the tick grid: refused, not merged.
		if bids != wantBids || asks != wantAsks {
			t.Errorf("hide=%v: bids %s asks %s, want %s / %s", hide, bids, asks, wantBids, wantAsks)
		}
	}
}

func fmtLevels(ls []exchange.PriceLevel) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.Price.String()+":"+l.Size.String())
	}
	return strings.Join(parts, " ")
}

func TestPaperTrades(t *testing.T) {
	v, f, clk := newPaperSetup(t, fillmodel.ModeOptimistic, func(c *Config) { c.TradeLimit = -1 })
	f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "1", fixture.T0.Add(-time.Minute), "0xold") // before the session: history
	mustBooks(t, v, fixture.Yes)
	if f.TradeCalls != 0 {
		t.Errorf("TradeLimit -1 read the tape %d times", f.TradeCalls)
	}
	id := mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.5", "10"))[0].OrderID
	clk.Add(time.Second)
	f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "1", clk.Now(), "0xnew")
	limit, maker := 10, false
	// Maker-side records carry the maker's side: not fed.
	if _, err := v.Trades(context.Background(), exchange.TradesParams{Limit: &limit, TakerOnly: &maker}); err != nil {
		t.Fatal(err)
	}
	if o := mustOrder(t, v, id); !o.SizeMatched.IsZero() {
		t.Fatalf("fed a maker-side tape: %+v", o)
	}
	trades, err := v.Trades(context.Background(), exchange.TradesParams{Limit: &limit})
	if err != nil || len(trades) != 2 {
		t.Fatalf("trades pass through: %d %v", len(trades), err)
	}
	if o := mustOrder(t, v, id); !o.SizeMatched.Equal(fixture.Dec("10")) {
		t.Errorf("the loop's tape read did not feed the fill model: %+v", o)
	}
	if st := v.Stats(); st.Trades != 1 {
		t.Errorf("stats %+v: the old trade or a repeat was fed", st)
	}
	f.FailTrades = errors.New("boom")
	if _, err := v.Trades(context.Background(), exchange.TradesParams{}); err == nil {
		t.Error("a failed tape read was not returned")
	}
}

func TestPaperTradeReadsAreThrottledAndCounted(t *testing.T) {
	v, f, clk := newPaperSetup(t, fillmodel.ModeQueue, nil)
	mustBooks(t, v, fixture.Yes)
	mustBooks(t, v, fixture.No) // same instant: one tape read serves both batches
	if f.TradeCalls != 1 || f.LastTrades.Limit == nil || *f.LastTrades.Limit != 500 || f.LastTrades.TakerOnly == nil || !*f.LastTrades.TakerOnly ||
		len(f.LastTrades.Market) != 1 || f.LastTrades.Market[0] != fixture.Market {
		t.Errorf("tape reads %d, params %+v", f.TradeCalls, f.LastTrades)
	}
	f.FailTrades = errors.New("boom")
	clk.Add(time.Second)
	mustBooks(t, v, fixture.Yes)
	if st := v.Stats(); st.TradeReadErrors != 1 {
		t.Errorf("stats %+v", st)
	}
	f.FailBooks = errors.New("down")
	if _, err := v.Books(context.Background(), []string{fixture.Yes}); err == nil {
		t.Error("a failed book read was not returned")
	}
}

func TestNewPaperVenueErrors(t *testing.T) {
	ok := Market{ConditionID: "0xm", Tokens: [2]string{"1", "2"}, Tick: fixture.Dec("0.01"), MinSize: fixture.Dec("5")}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no markets", Config{}, "no markets"},
		{"same tokens", Config{Markets: []Market{{ConditionID: "0xm", Tokens: [2]string{"1", "1"}, Tick: fixture.Dec("0.01")}}}, "distinct"},
		{"no tick", Config{Markets: []Market{{ConditionID: "0xm", Tokens: [2]string{"1", "2"}}}}, "tick"},
		{"twice", Config{Markets: []Market{ok, ok}}, "twice"},
		{"shared token", Config{Markets: []Market{ok, {ConditionID: "0xn", Tokens: [2]string{"2", "3"}, Tick: fixture.Dec("0.01")}}}, "two markets"},
		{"bad mode", Config{Markets: []Market{ok}, Matcher: fillmodel.MatcherConfig{Mode: 9}}, "mode"},
	}
	for _, tt := range tests {
		if _, err := NewVenue(fixture.NewFakeExchange(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := NewVenue(nil, Config{Markets: []Market{ok}}); err == nil {
		t.Error("nil source accepted")
	}
}

var exactPriceCases = []struct {
	coll, shares int64
	want         exchange.Fixed
	ok           bool
}{
	{5_000_000, 10_000_000, 500_000, true},
	{1_234_567, 1_000_000, 0, false}, // above 1
	{1_000_000, 3_000_000, 0, false}, // 1/3
	{4_500_000, 10_000_000, 450_000, true},
	{1, 1_000_000, 1, true},
	{7, 9_000_000_000_000_000_000, 0, false},
	{9_000_000_000_000_000_000, 9_000_000_000_000_000_000, exchange.FixedScale, true},
	{0, 0, 0, false},
	{-89, 1_000_000, 0, false},
	{5, -10, 0, false},
}

// exactPrice runs a BUY's amounts (collateral, shares) through orderAmounts,
// the one decoder of placement amounts that the paper and replay venues
// share, and keeps prices in [0, 1].
func exactPrice(coll, shares int64) (exchange.Fixed, bool) {
	so := exchange.SignedOrder{Side: exchange.Buy, MakerAmount: strconv.FormatInt(coll, 10), TakerAmount: strconv.FormatInt(shares, 10)}
	p, _, err := fillmodel.OrderAmounts(&so)
	if err != nil || p > exchange.FixedScale {
		return 0, false
	}
	return p, true
}

func TestExactPrice(t *testing.T) {
	for _, c := range exactPriceCases {
		got, ok := exactPrice(c.coll, c.shares)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("exactPrice(%d, %d) = %s %v, want %s %v", c.coll, c.shares, got, ok, c.want, c.ok)
		}
	}
}

func FuzzExactPrice(f *testing.F) {
	for _, c := range exactPriceCases {
		f.Add(c.coll, c.shares)
	}
	f.Fuzz(func(t *testing.T, coll, shares int64) {
		p, ok := exactPrice(coll, shares)
		if !ok {
			return
		}
		if p < 0 || p > exchange.FixedScale {
			t.Fatalf("price %s out of [0, 1]", p)
		}
		// p × shares = coll × 10⁶ exactly (checked in 128 bits).
		lhs := mul128(int64(p), shares)
		rhs := mul128(coll, exchange.FixedScale)
		if lhs != rhs {
			t.Fatalf("exactPrice(%d, %d) = %s is not exact", coll, shares, p)
		}
	})
}

func mul128(a, b int64) [2]uint64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return [2]uint64{hi, lo}
}

// A trade on one token goes through the other token's orders at the
// complementary price (fillmodel.MatchTrade.Mirror): a taker buying YES at
// 0.6 met our BUY of NO at 0.45 (a YES ask at 0.55) first.
func TestPaperTradeFillsTheOtherToken(t *testing.T) {
	v, f, clk := newPaperSetup(t, fillmodel.ModeQueue, nil)
	mustBooks(t, v, fixture.Yes, fixture.No)
	id := mustPlace(t, v, fixture.Item(fixture.No, exchange.Buy, "0.45", "10"))[0].OrderID
	clk.Add(time.Second)
	f.AddTrade(fixture.Market, 0, exchange.Buy, "0.6", "25", clk.Now(), "0xyesbuy")
	limit := 10
	if _, err := v.Trades(context.Background(), exchange.TradesParams{Limit: &limit}); err != nil {
		t.Fatal(err)
	}
	if o := mustOrder(t, v, id); !o.SizeMatched.Equal(fixture.Dec("10")) {
		t.Errorf("a YES buyer at 0.6 did not fill our NO bid at 0.45: %+v", o)
	}
}

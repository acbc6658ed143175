package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// twoBooks is the opening of every hand-made recording: both tokens'
// books at t0.
func twoBooks(tb testing.TB) []recording.Event {
	return []recording.Event{
		bookAt(tb, 0, synthetic.TokY, []string{"0.48:100", "0.47:200"}, []string{"0.52:100", "0.53:200"}),
		bookAt(tb, 0, synthetic.TokN, []string{"0.48:100"}, []string{"0.52:100"}),
	}
}

func TestReplayFillAfterOrderLatency(t *testing.T) {
	lat := fillmodel.Latency{Order: fillmodel.Constant(50 * time.Millisecond), Cancel: fillmodel.Constant(50 * time.Millisecond)}
	for _, tc := range []struct {
		name    string
		tradeAt int // ms after t0
		filled  bool
	}{
		{"trade before the order rests", 30, false},
		{"trade after the order rests", 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := append(twoBooks(t), tradeAt(tc.tradeAt, synthetic.TokY, "0.48", "10", exchange.Sell), bookAt(t, 2000, synthetic.TokY, []string{"0.48:90"}, []string{"0.52:100"}))
			r, acc := newTestReplay(t, evs, lat)
			var s Signer
			it, id := item(t, &s, synthetic.TokY, exchange.Buy, "0.49", "10")
			res := place(t, r, it)
			if !res[0].Success || res[0].OrderID != id || res[0].Status != exchange.PlaceLive {
				t.Fatalf("placement %+v, want success, live, id %s", res[0], id)
			}
			if got := r.Now(); !got.Equal(fixture.Ms(50)) {
				t.Fatalf("PlaceOrders returned at %v, want once the order rests at +50ms", got.Sub(fixture.T0))
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

func TestReplayDataLatencyHidesBookUpdate(t *testing.T) {
	evs := append(twoBooks(t),
		bookAt(t, 1000, synthetic.TokY, []string{"0.50:40"}, []string{"0.52:100"}),
		bookAt(t, 5000, synthetic.TokY, []string{"0.50:40"}, []string{"0.52:100"}))
	r, _ := newTestReplay(t, evs, fillmodel.Latency{Data: fillmodel.Constant(100 * time.Millisecond)})
	ctx := context.Background()
	for _, tc := range []struct {
		at      time.Duration // since t0
		wantBid string        // best YES bid the strategy sees; "" for no book yet
		stamp   time.Duration // the books' timestamp, since t0
	}{
		{0, "", 0},
		{50 * time.Millisecond, "", 0},
		{100 * time.Millisecond, "0.48", 0},
		{1050 * time.Millisecond, "0.48", 950 * time.Millisecond},
		{1100 * time.Millisecond, "0.5", time.Second},
		{2 * time.Second, "0.5", 1900 * time.Millisecond},
	} {
		if err := r.Sleep(ctx, fixture.T0.Add(tc.at).Sub(r.Now())); err != nil {
			t.Fatal(err)
		}
		books, err := r.Books(ctx, []string{synthetic.TokY, synthetic.TokN})
		if err != nil {
			t.Fatal(err)
		}
		if tc.wantBid == "" {
			if len(books) != 0 {
				t.Fatalf("at %v: %d books, want none visible yet", tc.at, len(books))
			}
			continue
		}
		if len(books) != 2 || books[0].AssetID != synthetic.TokY {
			t.Fatalf("at %v: books %+v", tc.at, books)
		}
		if got := books[0].Bids[0].Price.String(); got != tc.wantBid {
			t.Errorf("at %v: best bid %s, want %s", tc.at, got, tc.wantBid)
		}
		if want := fixture.T0.Add(tc.stamp).UnixMilli(); books[0].Timestamp != strconv.FormatInt(want, 10) {
			t.Errorf("at %v: timestamp %s, want %d", tc.at, books[0].Timestamp, want)
		}
	}
}

func TestReplayCancel(t *testing.T) {
	lat := fillmodel.Latency{Order: fillmodel.Constant(50 * time.Millisecond), Cancel: fillmodel.Constant(100 * time.Millisecond)}
	for _, tc := range []struct {
		name       string
		trade      recording.Event // a sell at our bid, 1.05 s after t0 (inside the cancel latency)
		wantCancel bool
		wantStatus string
		wantMatch  string
	}{
		{"no fill", recording.Event{}, true, exchange.StatusCanceled, "0"},
		{"partial fill before the cancel takes effect", tradeAt(1050, synthetic.TokY, "0.49", "4", exchange.Sell), true, exchange.StatusCanceled, "4"},
		{"filled before the cancel takes effect", tradeAt(1050, synthetic.TokY, "0.48", "50", exchange.Sell), false, exchange.StatusMatched, "10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := twoBooks(t)
			if tc.trade.Kind != 0 {
				evs = append(evs, tc.trade)
			}
			evs = append(evs, bookAt(t, 3000, synthetic.TokY, []string{"0.48:100"}, []string{"0.52:100"}))
			r, acc := newTestReplay(t, evs, lat)
			var s Signer
			it, id := item(t, &s, synthetic.TokY, exchange.Buy, "0.49", "10")
			place(t, r, it)
			ctx := context.Background()
			if err := r.Sleep(ctx, time.Second-50*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			res, err := r.CancelOrder(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Now().Sub(fixture.T0); got != 1100*time.Millisecond {
				t.Errorf("CancelOrder returned at %v, want once the cancel took effect (1.1s)", got)
			}
			if canceled := slices.Contains(res.Canceled, id); canceled != tc.wantCancel {
				t.Errorf("canceled %v (not_canceled %v), want %v", res.Canceled, res.NotCanceled, tc.wantCancel)
			}
			o := orderOf(t, r, id)
			if o.Status != tc.wantStatus || o.SizeMatched.String() != tc.wantMatch {
				t.Errorf("order %s matched %s, want %s %s", o.Status, o.SizeMatched, tc.wantStatus, tc.wantMatch)
			}
			// A second cancel finds the order final.
			res, err = r.CancelOrder(ctx, id)
			if err != nil || len(res.Canceled) != 0 || res.NotCanceled[id] == "" {
				t.Errorf("second cancel: %+v, %v", res, err)
			}
			if _, err := r.CancelOrder(ctx, "0xnope"); !errors.Is(err, exchange.ErrNotFound) {
				t.Errorf("cancel of an unknown order: %v, want ErrNotFound", err)
			}
			out, err := acc.Finish(r.End())
			if err != nil {
				t.Fatal(err)
			}
			if out.Total.CancelsSent != 1 {
				t.Errorf("cancels sent %d, want 1 (the second was refused before sending)", out.Total.CancelsSent)
			}
		})
	}
}

func TestReplayPlaceValidation(t *testing.T) {
	r, _ := newTestReplay(t, twoBooks(t), fillmodel.Latency{})
	var s Signer
	good, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.45", "10")
	offGrid, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.455", "10")
	small, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.45", "4")
	unknown, _ := item(t, &s, "Z", exchange.Buy, "0.45", "10")
	bad := good
	bad.Order.MakerAmount = "abc"
	inexact := good
	inexact.Order.TakerAmount = "3000000" // 4.5 collateral for 3 shares: 1.5, fine; but below min size
	inexact.Order.MakerAmount = "1000000" // 1/3: not exact
	fok := good
	fok.OrderType = exchange.FOK
	res := place(t, r, good, offGrid, small, unknown, bad, inexact, fok, good)
	want := []string{"", "tick", "minimum", "unknown token", "invalid amounts", "not exact", "not simulated", "already exists"}
	for i, w := range want {
		if w == "" {
			if !res[i].Success {
				t.Errorf("item %d refused: %s", i, res[i].ErrorMsg)
			}
			continue
		}
		if res[i].Success || !strings.Contains(res[i].ErrorMsg, w) {
			t.Errorf("item %d: %+v, want a refusal mentioning %q", i, res[i], w)
		}
	}
}

func TestOrderAmounts(t *testing.T) {
	for _, tc := range orderAmountCases {
		so := exchange.SignedOrder{Side: tc.side, MakerAmount: tc.maker, TakerAmount: tc.taker}
		p, s, err := fillmodel.OrderAmounts(&so)
		if (err != nil) != (tc.price == "") {
			t.Errorf("%v: err %v", tc, err)
			continue
		}
		if err == nil && (p.String() != tc.price || s.String() != tc.size) {
			t.Errorf("%v: price %s size %s", tc, p, s)
		}
	}
}

var orderAmountCases = []struct {
	side         exchange.Side
	maker, taker string
	price, size  string // "" price: an error
}{
	{exchange.Buy, "4900000", "10000000", "0.49", "10"},
	{exchange.Sell, "10000000", "5100000", "0.51", "10"},
	{exchange.Buy, "123", "1000", "0.123", "0.001"},
	{exchange.Buy, "1000000", "3000000", "", ""}, // 1/3
	{exchange.Buy, "0", "10", "", ""},
	{exchange.Buy, "-5", "10", "", ""},
	{exchange.Buy, "9223372036854775807", "1", "", ""}, // price out of range
	{exchange.Buy, "x", "10", "", ""},
}

func FuzzOrderAmounts(f *testing.F) {
	for _, tc := range orderAmountCases {
		f.Add(tc.side == exchange.Sell, tc.maker, tc.taker)
	}
	f.Fuzz(func(t *testing.T, sell bool, maker, taker string) {
		side := exchange.Buy
		if sell {
			side = exchange.Sell
		}
		so := exchange.SignedOrder{Side: side, MakerAmount: maker, TakerAmount: taker}
		p, s, err := fillmodel.OrderAmounts(&so)
		if err != nil {
			return
		}
		// The price is exact: price × shares = collateral × 10^6.
		collateral, shares := maker, taker
		if sell {
			collateral, shares = taker, maker
		}
		c, _ := new(big.Int).SetString(collateral, 10)
		sh, _ := new(big.Int).SetString(shares, 10)
		lhs := new(big.Int).Mul(big.NewInt(int64(p)), sh)
		rhs := new(big.Int).Mul(c, big.NewInt(exchange.FixedScale))
		if lhs.Cmp(rhs) != 0 || p <= 0 || s <= 0 || big.NewInt(int64(s)).Cmp(sh) != 0 {
			t.Fatalf("%s %s/%s: price %d size %d", side, maker, taker, p, s)
		}
	})
}

func TestReplayTradesTape(t *testing.T) {
	evs := append(twoBooks(t),
		tradeAt(1000, synthetic.TokY, "0.52", "3", exchange.Buy),
		tradeAt(2000, synthetic.TokN, "0.48", "4", exchange.Sell),
		tradeAt(3000, synthetic.TokY, "0.48", "5", exchange.Sell),
		bookAt(t, 9000, synthetic.TokY, []string{"0.48:100"}, []string{"0.52:100"}))
	r, _ := newTestReplay(t, evs, fillmodel.Latency{Data: fillmodel.Constant(500 * time.Millisecond)})
	ctx := context.Background()
	if err := r.Sleep(ctx, 3200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got, err := r.Trades(ctx, exchange.TradesParams{Market: []string{synthetic.Cond}})
	if err != nil {
		t.Fatal(err)
	}
	// The trade at 3 s is not visible yet (data latency 0.5 s).
	want := []struct {
		asset string
		side  exchange.Side
		size  string
		ts    int64
	}{
		{synthetic.Cond + ":0", exchange.Buy, "3", fixture.Ms(1000).Unix()},
		{synthetic.Cond + ":1", exchange.Sell, "4", fixture.Ms(2000).Unix()},
	}
	if len(got) != len(want) {
		t.Fatalf("%d trades, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Asset != w.asset || g.Side != w.side || g.Size.String() != w.size || g.Timestamp != w.ts || g.ConditionID != synthetic.Cond {
			t.Errorf("trade %d: %+v, want %+v", i, g, w)
		}
	}
	one := 1
	got, _ = r.Trades(ctx, exchange.TradesParams{Limit: &one})
	if len(got) != 1 || got[0].Size.String() != "4" {
		t.Errorf("limit 1: %+v, want the newest trade", got)
	}
	got, _ = r.Trades(ctx, exchange.TradesParams{Market: []string{"0xother"}})
	if len(got) != 0 {
		t.Errorf("other market: %+v", got)
	}
}

func TestReplayBudget(t *testing.T) {
	limits := exchange.DefaultLimits()
	limits.PostOrderBurst = exchange.Cap{Requests: 60, Window: 10 * time.Second}
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{})
	r, err := New(&SliceSource{Events: append(twoBooks(t), bookAt(t, 60_000, synthetic.TokY, []string{"0.48:1"}, []string{"0.52:1"}))},
		Config{Markets: []strategy.Market{synthetic.Market()}, Limits: &limits}, acc)
	if err != nil {
		t.Fatal(err)
	}
	// Fill 0.95 of 60 per 10 s: a window holds at most 57, a burst of 2
	// and a refill of 55 per 10 s.
	if b := r.Budget(r.Now()); b.Orders != 2 || b.Cancels != 114 {
		t.Fatalf("budget %+v, want 2 orders (burst) and 114 cancels", b)
	}
	var s Signer
	var items []exchange.PlacementItem
	for i := 0; i < 2; i++ {
		it, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.4"+strconv.Itoa(i), "10")
		items = append(items, it)
	}
	start := r.Now()
	place(t, r, items...)
	if b := r.Budget(r.Now()); b.Orders != 0 {
		t.Fatalf("budget after the burst %+v", b)
	}
	// The next order waits for a token: 10 s / 55.
	it, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.3", "10")
	place(t, r, it)
	if waited := r.Now().Sub(start); waited < 10*time.Second/55 || waited > 10*time.Second/55+time.Millisecond {
		t.Errorf("waited %v for the rate limit, want about %v", waited, 10*time.Second/55)
	}
	if _, err := r.PlaceOrders(context.Background(), make([]exchange.PlacementItem, 3)); err == nil {
		t.Error("a batch larger than the burst was accepted")
	}
}

func TestReplayResolution(t *testing.T) {
	evs := append(twoBooks(t),
		recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.Ms(2000)}, TokenID: synthetic.TokY, Market: synthetic.Cond, Resolved: true, Payout: fixture.Dec("1")}),
		recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.Ms(2000)}, TokenID: synthetic.TokN, Market: synthetic.Cond, Resolved: true, Payout: fixture.Dec("0")}),
		bookAt(t, 5000, synthetic.TokY, []string{"0.48:100"}, []string{"0.52:100"}))
	r, acc := newTestReplay(t, evs, fillmodel.Latency{})
	var s Signer
	it, id := item(t, &s, synthetic.TokY, exchange.Buy, "0.52", "10") // crosses: takes the ask
	res := place(t, r, it)
	if res[0].Status != exchange.PlaceMatched {
		t.Fatalf("a crossing order: %+v, want matched", res[0])
	}
	it2, id2 := item(t, &s, synthetic.TokY, exchange.Buy, "0.4", "10")
	place(t, r, it2)
	ctx := context.Background()
	if err := r.Sleep(ctx, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Books(ctx, []string{synthetic.TokY, synthetic.TokN}); !errors.Is(err, exchange.ErrNotFound) {
		t.Errorf("books of a resolved market: %v, want ErrNotFound", err)
	}
	if o := orderOf(t, r, id2); o.Status != exchange.StatusCanceled {
		t.Errorf("resting order after resolution: %s, want CANCELED", o.Status)
	}
	if o := orderOf(t, r, id); o.Status != exchange.StatusMatched {
		t.Errorf("filled order: %s", o.Status)
	}
	it3, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.4", "10")
	if res := place(t, r, it3); res[0].Success || !strings.Contains(res[0].ErrorMsg, "closed") {
		t.Errorf("placing in a resolved market: %+v", res[0])
	}
	out, err := acc.Finish(r.End())
	if err != nil {
		t.Fatal(err)
	}
	// Bought 10 at 0.52 (taker), redeemed at 1.
	if got := out.Total.PnL.String(); got != "4.8" {
		t.Errorf("PnL %s, want 4.8", got)
	}
}

func TestReplaySleepEnds(t *testing.T) {
	r, _ := newTestReplay(t, append(twoBooks(t), bookAt(t, 1500, synthetic.TokY, []string{"0.48:1"}, []string{"0.52:1"})), fillmodel.Latency{})
	ctx := context.Background()
	if err := r.Sleep(ctx, time.Second); err != nil {
		t.Fatalf("before the last event: %v", err)
	}
	err := r.Sleep(ctx, time.Second)
	if !errors.Is(err, io.EOF) || !errors.Is(err, ErrEndOfRecording) || !r.Done() {
		t.Fatalf("after the last event: %v, want ErrEndOfRecording (io.EOF)", err)
	}
	if err := r.Sleep(ctx, time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("again: %v", err)
	}
	if got := r.End(); !got.Equal(fixture.Ms(1500)) || r.Events() != 3 {
		t.Errorf("end %v, events %d", got, r.Events())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := r.Sleep(cctx, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if _, err := New(&SliceSource{}, Config{}, accounting.NewAccumulator(accounting.AccumulatorConfig{})); !errors.Is(err, ErrEmptyRecording) {
		t.Errorf("empty recording: %v", err)
	}
}

func TestReplayBooksShowOwnOrders(t *testing.T) {
	for _, hide := range []bool{false, true} {
		acc := accounting.NewAccumulator(accounting.AccumulatorConfig{})
		r, err := New(&SliceSource{Events: append(twoBooks(t), bookAt(t, 9000, synthetic.TokY, []string{"0.48:1"}, []string{"0.52:1"}))},
			Config{Markets: []strategy.Market{synthetic.Market()}, HideOwnOrders: hide}, acc)
		if err != nil {
			t.Fatal(err)
		}
		var s Signer
		a, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.49", "10")
		b, _ := item(t, &s, synthetic.TokY, exchange.Buy, "0.48", "7")
		c, _ := item(t, &s, synthetic.TokY, exchange.Sell, "0.6", "5")
		place(t, r, a, b, c)
		books, err := r.Books(context.Background(), []string{synthetic.TokY})
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(books[0].Bids, books[0].Asks)
		want := "[{0.49 10} {0.48 107} {0.47 200}] [{0.52 100} {0.53 200} {0.6 5}]"
		if hide {
			want = "[{0.48 100} {0.47 200}] [{0.52 100} {0.53 200}]"
		}
		if got != want {
			t.Errorf("hide %v: book %s, want %s", hide, got, want)
		}
	}
}

func TestReplayForgetsOldFinalOrders(t *testing.T) {
	evs := append(twoBooks(t), bookAt(t, 600_000, synthetic.TokY, []string{"0.48:100"}, []string{"0.52:100"}))
	r, _ := newTestReplay(t, evs, fillmodel.Latency{})
	ctx := context.Background()
	var s Signer
	a, idA := item(t, &s, synthetic.TokY, exchange.Buy, "0.41", "10")
	b, idB := item(t, &s, synthetic.TokY, exchange.Buy, "0.42", "10")
	place(t, r, a, b)
	if _, err := r.CancelOrder(ctx, idA); err != nil {
		t.Fatal(err)
	}
	if err := r.Sleep(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if o := orderOf(t, r, idA); o.Status != exchange.StatusCanceled {
		t.Fatalf("a minute after its cancel: %s", o.Status)
	}
	if err := r.Sleep(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CancelOrder(ctx, idB); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Order(ctx, idA); !errors.Is(err, exchange.ErrNotFound) {
		t.Errorf("three minutes after its cancel the order is still kept: %v", err)
	}
	if o := orderOf(t, r, idB); o.Status != exchange.StatusCanceled {
		t.Errorf("the order just cancelled: %s", o.Status)
	}
}

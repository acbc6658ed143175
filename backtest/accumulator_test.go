package backtest

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

func sec(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Second))) }

func top(t *testing.T, bid, ask string) *FixedBook {
	return &FixedBook{Bids: []Level{{fx(t, bid), fx(t, "100")}}, Asks: []Level{{fx(t, ask), fx(t, "100")}}}
}

// scenario is the hand-computed run of TestAccumulator (see the comments
// there for the arithmetic).
func scenario(t *testing.T) *Results {
	acc := NewAccumulator(AccumulatorConfig{Run: RunInfo{Mode: ModeQueue, Fees: Fees{TakerBps: dec("100")},
		Latency: Latency{Order: Constant(50 * time.Millisecond)}, Data: "rec.jsonl.gz", Strategy: "bands"}})
	a := acc.Token("A")
	a.OnBook(sec(0), top(t, "0.48", "0.52"))
	a.OnPlace(sec(0), VirtualOrder{ID: "b1", Side: exchange.Buy, Price: fx(t, "0.49"), Size: fx(t, "100")})
	a.OnPlace(sec(0), VirtualOrder{ID: "s1", Side: exchange.Sell, Price: fx(t, "0.51"), Size: fx(t, "100")})
	a.OnQuote(sec(0), fx(t, "0.49"), fx(t, "0.51"))
	a.OnFill(Fill{OrderID: "b1", Side: exchange.Buy, Price: fx(t, "0.49"), Size: fx(t, "100"), Time: sec(30), First: true, Wait: 30 * time.Second, Reason: FillQueue})
	a.OnBook(sec(31), top(t, "0.47", "0.49"))
	a.OnBook(sec(40), top(t, "0.50", "0.52"))
	a.OnFill(Fill{OrderID: "s1", Side: exchange.Sell, Price: fx(t, "0.51"), Size: fx(t, "60"), Remaining: fx(t, "40"), Time: sec(90), First: true, Wait: 90 * time.Second, Reason: FillQueue})
	a.OnPlace(sec(95), VirtualOrder{ID: "t1", Side: exchange.Buy, Price: fx(t, "0.52"), Size: fx(t, "10")})
	a.OnFill(Fill{OrderID: "t1", Side: exchange.Buy, Price: fx(t, "0.52"), Size: fx(t, "10"), Time: sec(95), Taker: true, First: true, Reason: FillTaker})
	a.OnCancel(sec(96))
	a.OnBook(sec(100), top(t, "0.55", "0.57"))
	acc.OnReward(sec(120), RewardScore{Ours: 3, Total: 12}, 1)
	a.OnResolve(sec(150), dec("1"))
	a.OnBook(sec(160), top(t, "0.10", "0.20")) // ignored: resolved
	r, err := acc.Finish(sec(170))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Finish(sec(171)); !errors.Is(err, ErrFinished) {
		t.Errorf("second Finish = %v", err)
	}
	return r
}

func TestAccumulator(t *testing.T) {
	r := scenario(t)
	s := r.Total
	checkDec := func(name string, got decimal.Decimal, want string) {
		t.Helper()
		if !got.Equal(dec(want)) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	// Cash: −49 (buy 100 @0.49) +30.6 (sell 60 @0.51) −5.2 (buy 10 @0.52)
	// −0.052 (1% taker fee) +50 (50 shares redeemed at 1) = 26.348.
	checkDec("PnL", s.PnL, "26.348")
	checkDec("Cash", s.Cash, "26.348")
	// Realized: 60 × (0.51 − 0.49) = 1.2; redemption 50 − 24.8 (cost of 40 @0.49
	// and 10 @0.52) = 25.2; minus the fee.
	checkDec("Realized", s.Realized, "26.348")
	checkDec("Unrealized", s.Unrealized, "0")
	// Spread: 100 × (0.50 − 0.49) + 60 × (0.51 − 0.51) + 10 × (0.51 − 0.52).
	checkDec("SpreadPnL", s.SpreadPnL, "0.9")
	checkDec("Fees", s.Fees, "0.052")
	checkDec("InventoryPnL", s.InventoryPnL, "25.5")
	checkDec("Volume", s.Volume, "170")
	checkDec("Notional", s.Notional, "84.8")
	if s.Fills != 3 || s.TakerFills != 1 {
		t.Errorf("fills %d taker %d", s.Fills, s.TakerFills)
	}
	if fr := s.FillRatio(); math.Abs(fr-170.0/210) > 1e-12 {
		t.Errorf("fill ratio %v", fr)
	}
	if s.AvgWait != 60*time.Second || s.WaitSamples != 2 {
		t.Errorf("avg wait %v over %d", s.AvgWait, s.WaitSamples)
	}
	if s.OrdersSent != 3 || s.CancelsSent != 1 {
		t.Errorf("orders %d cancels %d", s.OrdersSent, s.CancelsSent)
	}
	tok := r.Tokens[0]
	checkDec("MaxAbsPos", tok.MaxAbsPos, "100")
	checkDec("Position", tok.Position, "0")
	checkDec("LastMid", tok.LastMid, "1")
	if tok.MeanAbsPos != 75 || !tok.Resolved { // samples at 1:00 (100) and 2:00 (50)
		t.Errorf("mean |pos| %v resolved %v", tok.MeanAbsPos, tok.Resolved)
	}
	wantMarkouts := [][]float64{
		{-0.01, 0, -0.01},   // 1 s
		{0.02, -0.05, 0.04}, // 10 s
		{0.02, -0.49, 0.48}, // 60 s (the last two after resolution, at the payout)
	}
	for i, m := range r.Markouts {
		if len(m.Values) != len(wantMarkouts[i]) {
			t.Errorf("markouts %v: %v, want %v", m.Horizon, m.Values, wantMarkouts[i])
			continue
		}
		for j := range m.Values {
			if math.Abs(m.Values[j]-wantMarkouts[i][j]) > 1e-9 {
				t.Errorf("markouts %v: %v, want %v", m.Horizon, m.Values, wantMarkouts[i])
				break
			}
		}
	}
	if m := r.Markouts[1]; math.Abs(m.Mean-(0.01/3)) > 1e-9 || math.Abs(m.SizeWeight-(2-3+0.4)/170) > 1e-9 || m.Median != 0.02 {
		t.Errorf("10 s stats %+v", m)
	}
	if len(r.Totals) != 2 || !r.Totals[0].PnL.Equal(dec("2")) || !r.Totals[1].PnL.Equal(dec("4.348")) ||
		!r.Totals[0].Time.Equal(sec(60)) {
		t.Errorf("totals %+v", r.Totals)
	}
	if len(r.Series) != 2 || r.Series[1].OurBid != fx(t, "0.49") || !r.Series[1].Mid.Equal(dec("0.56")) || r.Series[1].Fills != 3 {
		t.Errorf("series %+v", r.Series)
	}
	if !r.MaxDrawdown.IsZero() || !math.IsNaN(r.Sharpe) {
		t.Errorf("drawdown %s sharpe %v", r.MaxDrawdown, r.Sharpe)
	}
	if r.RewardShare() != 0.25 || r.Samples != 1 {
		t.Errorf("reward share %v", r.RewardShare())
	}
	if r.Rates[0].Peak != 2 || r.Rates[1].Peak != 3 || r.Rates[2].Peak != 1 || r.Rates[0].Cap != 2400 {
		t.Errorf("rates %+v", r.Rates)
	}
	if len(r.Fills) != 3 || !r.Fills[0].Mid.Equal(dec("0.5")) {
		t.Errorf("fills %+v", r.Fills)
	}
}

func TestAccumulatorShortAndFlip(t *testing.T) {
	acc := NewAccumulator(AccumulatorConfig{})
	a := acc.Token("X")
	a.OnBook(sec(0), top(t, "0.40", "0.60"))
	fill := func(at float64, side exchange.Side, price, size string) {
		a.OnFill(Fill{OrderID: "o", Side: side, Price: fx(t, price), Size: fx(t, size), Time: sec(at)})
	}
	fill(1, exchange.Sell, "0.60", "10") // short 10 @0.60
	fill(2, exchange.Buy, "0.40", "15")  // cover 10 (+2), long 5 @0.40
	fill(3, exchange.Sell, "0.50", "5")  // close 5 (+0.5)
	r, err := acc.Finish(sec(4))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Total.Realized.Equal(dec("2.5")) || !r.Total.PnL.Equal(dec("2.5")) || !r.Tokens[0].Position.IsZero() {
		t.Errorf("realized %s pnl %s pos %s", r.Total.Realized, r.Total.PnL, r.Tokens[0].Position)
	}
}

func TestStats(t *testing.T) {
	ann := annualisation(time.Minute)
	if math.Abs(ann-math.Sqrt(525600)) > 1e-9 {
		t.Errorf("annualisation %v", ann)
	}
	r := []float64{1, -1, 2, 0}
	// mean 0.5, sample sd sqrt(((0.5)²+(1.5)²+(1.5)²+(0.5)²)/3) = sqrt(5/3)
	if got, want := sharpe(r, 1), 0.5/math.Sqrt(5.0/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("sharpe %v want %v", got, want)
	}
	// downside deviation sqrt(1/4) = 0.5
	if got := sortino(r, 2); math.Abs(got-2) > 1e-12 {
		t.Errorf("sortino %v", got)
	}
	if !math.IsInf(sortino([]float64{1, 2}, 1), 1) || !math.IsNaN(sharpe([]float64{1}, 1)) || !math.IsNaN(sharpe([]float64{1, 1}, 1)) {
		t.Error("degenerate cases")
	}
	dd := maxDrawdown([]decimal.Decimal{dec("0"), dec("3"), dec("1"), dec("4"), dec("-1.5"), dec("2")})
	if !dd.Equal(dec("5.5")) {
		t.Errorf("drawdown %s", dd)
	}
	if median([]float64{3, 1, 2, 10}) != 2.5 || !math.IsNaN(median(nil)) {
		t.Error("median")
	}
	var w windowPeak
	w.width = 10 * time.Second
	for _, s := range []float64{0, 1, 2, 9.9, 10, 10.5, 30, 30, 30} {
		w.add(sec(s))
	}
	// Window (t−10 s, t]: at 10.5 s it holds 1, 2, 9.9, 10, 10.5 = 5.
	if w.peak != 5 || w.total != 9 {
		t.Errorf("window peak %d total %d", w.peak, w.total)
	}
}

func TestRewardScorerAndSampler(t *testing.T) {
	m, err := NewMatcher("tok", MatcherConfig{})
	if err != nil {
		t.Fatal(err)
	}
	book := FixedBook{Bids: []Level{{fx(t, "0.49"), fx(t, "100")}, {fx(t, "0.45"), fx(t, "100")}},
		Asks: []Level{{fx(t, "0.51"), fx(t, "50")}, {fx(t, "0.60"), fx(t, "1000")}}}
	m.OnBook(&book, sec(0))
	if _, err := m.Place(VirtualOrder{ID: "b", Side: exchange.Buy, Price: fx(t, "0.48"), Size: fx(t, "20")}, sec(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Place(VirtualOrder{ID: "tiny", Side: exchange.Sell, Price: fx(t, "0.52"), Size: fx(t, "1")}, sec(0)); err != nil {
		t.Fatal(err)
	}
	m.Advance(sec(1))
	s := RewardSampler{Scorer: QuadraticScorer{}}
	if _, n := s.Sample(sec(1), m, fx(t, "0.03"), fx(t, "5")); n != 0 {
		t.Error("first call sampled")
	}
	if _, n := s.Sample(sec(59), m, fx(t, "0.03"), fx(t, "5")); n != 0 {
		t.Error("sampled before the minute")
	}
	sc, n := s.Sample(sec(180), m, fx(t, "0.03"), fx(t, "5"))
	if n != 3 {
		t.Fatalf("samples %d, want 3 (1:00, 2:00, 3:00)", n)
	}
	// mid 0.50, v 0.03: ours: 0.48 → ((0.03−0.02)/0.03)²·20 = 20/9; the 1-share
	// ask is below min size. Book: 0.49 and 0.51 → (2/3)²·100 and (2/3)²·50;
	// 0.45 and 0.60 are beyond the spread.
	ours := 20.0 / 9
	total := ours + 4.0/9*150
	if math.Abs(sc.Ours-3*ours) > 1e-9 || math.Abs(sc.Total-3*total) > 1e-9 {
		t.Errorf("score %+v, want %v / %v", sc, 3*ours, 3*total)
	}
	if _, n := s.Sample(sec(200), m, fx(t, "0.03"), fx(t, "5")); n != 0 {
		t.Error("sampled twice in a minute")
	}
}

func TestFees(t *testing.T) {
	f := Fees{MakerBps: dec("-5"), TakerBps: dec("20")}
	if got := f.Fee(fx(t, "0.5"), fx(t, "100"), true); !got.Equal(dec("0.1")) {
		t.Errorf("taker fee %s", got)
	}
	if got := f.Fee(fx(t, "0.5"), fx(t, "100"), false); !got.Equal(dec("-0.025")) {
		t.Errorf("maker rebate %s", got)
	}
}

func TestAccumulatorOnBookDoesNotAllocate(t *testing.T) {
	acc := NewAccumulator(AccumulatorConfig{})
	a := acc.Token("A")
	b1, b2 := top(t, "0.48", "0.52"), top(t, "0.47", "0.52")
	now := sec(0)
	a.OnBook(now, b1)
	qb, qa := fx(t, "0.47"), fx(t, "0.53")
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		now = now.Add(time.Millisecond) // 1000 runs stay within one minute
		if i%2 == 0 {
			a.OnBook(now, b1)
		} else {
			a.OnBook(now, b2)
		}
		a.OnQuote(now, qb, qa)
	})
	if allocs != 0 {
		t.Errorf("OnBook allocates %.1f times", allocs)
	}
}

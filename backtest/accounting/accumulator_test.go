package accounting

import (
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

func top(t *testing.T, bid, ask string) *recording.FixedBook {
	return &recording.FixedBook{Bids: []recording.Level{{Price: fixture.Fx(t, bid), Size: fixture.Fx(t, "100")}}, Asks: []recording.Level{{Price: fixture.Fx(t, ask), Size: fixture.Fx(t, "100")}}}
}

func TestAccumulatorShortAndFlip(t *testing.T) {
	acc := NewAccumulator(AccumulatorConfig{})
	a := acc.Token("X")
	a.OnBook(fixture.Sec(0), top(t, "0.40", "0.60"))
	fill := func(at float64, side exchange.Side, price, size string) {
		a.OnFill(fillmodel.Fill{OrderID: "o", Side: side, Price: fixture.Fx(t, price), Size: fixture.Fx(t, size), Time: fixture.Sec(at)})
	}
	fill(1, exchange.Sell, "0.60", "10") // short 10 @0.60
	fill(2, exchange.Buy, "0.40", "15")  // cover 10 (+2), long 5 @0.40
	fill(3, exchange.Sell, "0.50", "5")  // close 5 (+0.5)
	r, err := acc.Finish(fixture.Sec(4))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Total.Realized.Equal(fixture.Dec("2.5")) || !r.Total.PnL.Equal(fixture.Dec("2.5")) || !r.Tokens[0].Position.IsZero() {
		t.Errorf("realized %s pnl %s pos %s", r.Total.Realized, r.Total.PnL, r.Tokens[0].Position)
	}
}

// A position whose average price has no finite decimal form realizes in
// base units, and closing it realizes exactly proceeds minus cost: the
// journal's rule (state.Position), so that the live report and a backtest
// book the same PnL.
func TestAccumulatorRealizedExact(t *testing.T) {
	acc := NewAccumulator(AccumulatorConfig{})
	a := acc.Token("X")
	fill := func(at float64, side exchange.Side, price, size string) {
		a.OnFill(fillmodel.Fill{OrderID: "o", Side: side, Price: fixture.Fx(t, price), Size: fixture.Fx(t, size), Time: fixture.Sec(at)})
	}
	fill(1, exchange.Buy, "0.10", "1")  // basis 0.10
	fill(2, exchange.Buy, "0.20", "2")  // basis 0.50 for 3 shares: 0.1666… each
	fill(3, exchange.Sell, "0.30", "1") // releases 0.5/3 = 0.166667: realizes 0.133333
	r1 := a.summary().Realized
	fill(4, exchange.Sell, "0.30", "2") // releases the rest, 0.333333: realizes 0.266667
	r, err := acc.Finish(fixture.Sec(5))
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Equal(fixture.Dec("0.133333")) {
		t.Errorf("realized after the first sale %s, want 0.133333", r1)
	}
	// 0.9 proceeds − 0.5 cost, not 0.3999999999999999.
	if !r.Total.Realized.Equal(fixture.Dec("0.4")) || !r.Total.PnL.Equal(fixture.Dec("0.4")) {
		t.Errorf("realized %s pnl %s, want 0.4", r.Total.Realized, r.Total.PnL)
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
	dd := maxDrawdown([]decimal.Decimal{fixture.Dec("0"), fixture.Dec("3"), fixture.Dec("1"), fixture.Dec("4"), fixture.Dec("-1.5"), fixture.Dec("2")})
	if !dd.Equal(fixture.Dec("5.5")) {
		t.Errorf("drawdown %s", dd)
	}
	if median([]float64{3, 1, 2, 10}) != 2.5 || !math.IsNaN(median(nil)) {
		t.Error("median")
	}
	var w windowPeak
	w.width = 10 * time.Second
	for _, s := range []float64{0, 1, 2, 9.9, 10, 10.5, 30, 30, 30} {
		w.add(fixture.Sec(s))
	}
	// Window (t−10 s, t]: at 10.5 s it holds 1, 2, 9.9, 10, 10.5 = 5.
	if w.peak != 5 || w.total != 9 {
		t.Errorf("window peak %d total %d", w.peak, w.total)
	}
}

func TestFees(t *testing.T) {
	f := fillmodel.Fees{MakerBps: fixture.Dec("-5"), TakerBps: fixture.Dec("20")}
	if got := f.Fee(fixture.Fx(t, "0.5"), fixture.Fx(t, "100"), true); !got.Equal(fixture.Dec("0.1")) {
		t.Errorf("taker fee %s", got)
	}
	if got := f.Fee(fixture.Fx(t, "0.5"), fixture.Fx(t, "100"), false); !got.Equal(fixture.Dec("-0.025")) {
		t.Errorf("maker rebate %s", got)
	}
}

func TestAccumulatorOnBookDoesNotAllocate(t *testing.T) {
	acc := NewAccumulator(AccumulatorConfig{})
	a := acc.Token("A")
	b1, b2 := top(t, "0.48", "0.52"), top(t, "0.47", "0.52")
	now := fixture.Sec(0)
	a.OnBook(now, b1)
	qb, qa := fixture.Fx(t, "0.47"), fixture.Fx(t, "0.53")
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

// A period of the order journal: a position carried in at the last fill
// price, a fill with the fee the exchange charged, marks without books.
func TestAccumulatorJournalInputs(t *testing.T) {
	acc := NewAccumulator(AccumulatorConfig{Run: RunInfo{Source: SourceJournal}})
	acc.Advance(fixture.Sec(0))
	a := acc.Token("A")
	// 10 shares that cost 4.00 (0.40 each), last traded at 0.50: cash −5,
	// PnL 0 at the start.
	a.OnOpen(fixture.Sec(0), fixture.Dec("10"), fixture.Dec("4"), fixture.Dec("0.50"), "last fill")
	// Sell 4 @0.60, fee 0.01: releases 4 × 4/10 = 1.6 of the basis, realizes
	// 2.4 − 1.6 − 0.01 = 0.79; cash −5 + 2.4 − 0.01 = −2.61; 6 left, basis 2.4.
	a.OnFillFee(fillmodel.Fill{OrderID: "o1", Side: exchange.Sell, Price: fixture.Fx(t, "0.60"), Size: fixture.Fx(t, "4"), Time: fixture.Sec(30)},
		fixture.Dec("0.01"))
	a.OnMark(fixture.Sec(30), fixture.Dec("0.60"), "last fill") // PnL −2.61 + 6 × 0.60 = 0.99
	a.OnMark(fixture.Sec(90), fixture.Dec("0.55"), "mid")       // PnL −2.61 + 6 × 0.55 = 0.69
	r, err := acc.Finish(fixture.Sec(90))
	if err != nil {
		t.Fatal(err)
	}
	tok := r.Tokens[0]
	checks := []struct {
		name      string
		got, want decimal.Decimal
	}{
		{"PnL", tok.PnL, fixture.Dec("0.69")},
		{"realized", tok.Realized, fixture.Dec("0.79")},
		// Unrealized 10 × 0.50 − 4 = 1 at the start, 6 × 0.55 − 2.4 = 0.9 at the end.
		{"unrealized", tok.Unrealized, fixture.Dec("-0.1")},
		{"fees", tok.Fees, fixture.Dec("0.01")},
		{"cash", tok.Cash, fixture.Dec("-2.61")},
		{"volume", tok.Volume, fixture.Dec("4")},
		{"notional", tok.Notional, fixture.Dec("2.4")},
		{"position", tok.Position, fixture.Dec("6")},
		{"max |position|", tok.MaxAbsPos, fixture.Dec("10")},
		{"mark", tok.LastMid, fixture.Dec("0.55")},
		{"spread PnL", tok.SpreadPnL, decimal.Zero},
		{"total PnL", r.Total.PnL, fixture.Dec("0.69")},
		{"fill fee", r.Fills[0].Fee, fixture.Dec("0.01")},
	}
	for _, c := range checks {
		if !c.got.Equal(c.want) {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if tok.MarkSource != "mid" || tok.MidlessFills != 1 || r.Markouts[0].Count != 0 || !r.Start.Equal(fixture.Sec(0)) {
		t.Errorf("mark source %q, midless fills %d, markouts %d, start %s", tok.MarkSource, tok.MidlessFills, r.Markouts[0].Count, r.Start)
	}
	// The sample at 1:00 values the 6 shares at the last fill price; there is
	// no book mid.
	if len(r.Series) != 1 || !r.Series[0].Mark.Equal(fixture.Dec("0.6")) || r.Series[0].HasMid || !r.Series[0].PnL.Equal(fixture.Dec("0.99")) {
		t.Errorf("series %+v", r.Series)
	}
}

// The more recent of a two-sided book and an explicit mark values the
// position; a one-sided book changes nothing.
func TestAccumulatorMarkPrecedence(t *testing.T) {
	acc := NewAccumulator(AccumulatorConfig{})
	a := acc.Token("B")
	steps := []struct {
		do         func(at time.Time)
		mark, from string
	}{
		{func(at time.Time) { a.OnBook(at, top(t, "0.40", "0.60")) }, "0.5", "mid"},
		{func(at time.Time) { a.OnMark(at, fixture.Dec("0.45"), "last fill") }, "0.45", "last fill"},
		{func(at time.Time) {
			a.OnBook(at, &recording.FixedBook{Bids: []recording.Level{{Price: fixture.Fx(t, "0.30"), Size: fixture.Fx(t, "1")}}})
		}, "0.45", "last fill"},
		{func(at time.Time) { a.OnBook(at, top(t, "0.44", "0.50")) }, "0.47", "mid"},
	}
	for i, s := range steps {
		s.do(fixture.Sec(float64(i)))
		if got := a.summary(); !got.LastMid.Equal(fixture.Dec(s.mark)) || got.MarkSource != s.from {
			t.Errorf("step %d: mark %s from %q, want %s from %q", i, got.LastMid, got.MarkSource, s.mark, s.from)
		}
	}
}

package strategy

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// fixedState returns a MarketState whose estimators give sigma2 and the
// prior (a, k) and whose fair value is fair at t0.
func fixedState(t *testing.T, fair, sigma2, a, k float64) *MarketState {
	t.Helper()
	p := DefaultEstimatorParams()
	p.Vol.Prior = sigma2
	p.Intensity.PriorA, p.Intensity.PriorK = a, k
	st, err := NewMarketState(p)
	if err != nil {
		t.Fatal(err)
	}
	st.Fair, st.HasFair, st.Updated = fair, true, t0
	return st
}

type dq struct {
	o     Outcome
	side  exchange.Side
	price float64
	size  float64
	level int
}

func checkQuotes(t *testing.T, got []Desired, want []dq) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d quotes %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Outcome != w.o || g.Side != w.side || math.Abs(g.Price-w.price) > 1e-7 || math.Abs(g.Size-w.size) > 1e-9 || g.Level != w.level {
			t.Errorf("quote %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestBands(t *testing.T) {
	cases := []struct {
		name string
		p    BandsParams
		yb   string
		ya   string
		pos  [2]string
		want []dq
	}{
		{"two levels at 0.50", BandsParams{Offsets: []float64{0.01, 0.03}, Sizes: []float64{10, 20}}, "0.49", "0.51", [2]string{"0", "0"}, []dq{
			{Yes, exchange.Buy, 0.49, 10, 0}, {No, exchange.Buy, 0.49, 10, 0},
			{Yes, exchange.Buy, 0.47, 20, 1}, {No, exchange.Buy, 0.47, 20, 1},
		}},
		// Fair 0.995 on a 0.001 grid: the ask side at 1.005 does not exist.
		{"near 1", BandsParams{Offsets: []float64{0.002, 0.01}, Sizes: []float64{5, 5}}, "0.994", "0.996", [2]string{"0", "0"}, []dq{
			{Yes, exchange.Buy, 0.993, 5, 0}, {No, exchange.Buy, 0.003, 5, 0},
			{Yes, exchange.Buy, 0.985, 5, 1},
		}},
		// Holding 15 YES with selling allowed: the first ask is a SELL YES;
		// the second sells the 5 left and buys NO for the other 5.
		{"sell inventory", BandsParams{Offsets: []float64{0.01, 0.02}, Sizes: []float64{10, 10}, AllowSell: true}, "0.59", "0.61", [2]string{"15", "0"}, []dq{
			{Yes, exchange.Buy, 0.59, 10, 0}, {Yes, exchange.Sell, 0.61, 10, 0},
			{Yes, exchange.Buy, 0.58, 10, 1}, {Yes, exchange.Sell, 0.62, 5, 1}, {No, exchange.Buy, 0.38, 5, 1},
		}},
		// BUY-only (an account that cannot sell): the same holding is ignored.
		{"buy only keeps buying", BandsParams{Offsets: []float64{0.01, 0.02}, Sizes: []float64{10, 10}}, "0.59", "0.61", [2]string{"15", "0"}, []dq{
			{Yes, exchange.Buy, 0.59, 10, 0}, {No, exchange.Buy, 0.39, 10, 0},
			{Yes, exchange.Buy, 0.58, 10, 1}, {No, exchange.Buy, 0.38, 10, 1},
		}},
		{"sell NO inventory as the bid", BandsParams{Offsets: []float64{0.01}, Sizes: []float64{10}, AllowSell: true}, "0.59", "0.61", [2]string{"0", "10"}, []dq{
			{No, exchange.Sell, 0.41, 10, 0}, {No, exchange.Buy, 0.39, 10, 0},
		}},
		// A pair held on both sides is offered back on both sides: nothing
		// is bought while it lasts.
		{"pair sold on both sides", BandsParams{Offsets: []float64{0.01, 0.02}, Sizes: []float64{10, 10}, AllowSell: true}, "0.59", "0.61", [2]string{"20", "20"}, []dq{
			{No, exchange.Sell, 0.41, 10, 0}, {Yes, exchange.Sell, 0.61, 10, 0},
			{No, exchange.Sell, 0.42, 10, 1}, {Yes, exchange.Sell, 0.62, 10, 1},
		}},
		// A rest below the minimum size (5) is neither sold nor bought.
		{"dust below the minimum", BandsParams{Offsets: []float64{0.01}, Sizes: []float64{10}, AllowSell: true}, "0.59", "0.61", [2]string{"7", "3"}, []dq{
			{Yes, exchange.Buy, 0.59, 10, 0}, {Yes, exchange.Sell, 0.61, 7, 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewBands(c.p)
			if err != nil {
				t.Fatal(err)
			}
			tick := "0.01"
			if strings.Contains(c.yb, "99") {
				tick = "0.001"
			}
			s := book(tick, c.yb, c.ya, "", "")
			s.Position = [2]decimal.Decimal{d(c.pos[0]), d(c.pos[1])}
			if strings.HasPrefix(c.name, "dust") {
				s.MinSize = d("5")
			}
			checkQuotes(t, m.Quote(nil, s, nil), c.want)
		})
	}
}

func TestBandsNoFair(t *testing.T) {
	m, _ := NewBands(BandsParams{Offsets: []float64{0.01}, Sizes: []float64{1}})
	if q := m.Quote(nil, book("0.01", "", "", "", ""), nil); len(q) != 0 {
		t.Fatalf("quoted without a fair value: %+v", q)
	}
}

// TestAvellanedaWorkedExample checks the model against numbers worked by
// hand in logit space.
func TestAvellanedaWorkedExample(t *testing.T) {
	// p = 0.6 → x = ln(0.6/0.4) = ln 1.5 = 0.4054651
	// σ² = 1e-6 /s, T−t = 10 000 s → σ²(T−t) = 0.01; γ = 2, k = 20
	// q = 300 shares / 100 per unit = 3
	// r      = x − q·γ·σ²(T−t) = 0.4054651 − 3·2·0.01 = 0.3454651
	// spread = γσ²(T−t) + (2/γ)·ln(1 + γ/k) = 0.02 + 1·ln 1.1 = 0.02 + 0.0953102 = 0.1153102
	// bid_x  = r − spread/2 = 0.3454651 − 0.0576551 = 0.2878100 → p = 1/(1+e^−0.28781) = 0.5714599
	// ask_x  = r + spread/2 = 0.4031202 → p = 0.5994371
	// Long inventory pulls both quotes below the fair value 0.6.
	a := AvellanedaQuote(math.Log(1.5), 3, 2, 1e-6, 10000, 20)
	approx(t, "reservation", a.Reservation, 0.3454651, 1e-7)
	approx(t, "spread", a.Spread, 0.1153102, 1e-7)
	approx(t, "bid_x", a.Bid, 0.2878100, 1e-7)
	approx(t, "ask_x", a.Ask, 0.4031202, 1e-7)

	// The end date (10 000 s away) is sooner than Horizon (3 h): T−t is the
	// time to it.
	m, err := NewAvellaneda(AvellanedaParams{Gamma: 2, K: 20, Horizon: 3 * time.Hour, InventoryUnit: 100,
		Ladder: Ladder{Size: 10, Levels: 1}})
	if err != nil {
		t.Fatal(err)
	}
	s := book("0.01", "0.59", "0.61", "", "")
	s.EndDate = t0.Add(10000 * time.Second)
	s.Position[Yes] = d("300")
	st := fixedState(t, 0.6, 1e-6, 1, 99)
	checkQuotes(t, m.Quote(nil, s, st), []dq{
		{Yes, exchange.Buy, 0.5714599, 10, 0},
		{No, exchange.Buy, 1 - 0.5994371, 10, 0},
	})

	// No end date: the configured horizon (here the same 10 000 s), and K = 0
	// takes k from the intensity estimate (the prior, 20).
	m2, _ := NewAvellaneda(AvellanedaParams{Gamma: 2, Horizon: 10000 * time.Second, InventoryUnit: 100, Ladder: Ladder{Size: 10, Levels: 1}})
	s.EndDate = time.Time{}
	checkQuotes(t, m2.Quote(nil, s, fixedState(t, 0.6, 1e-6, 1, 20)), []dq{
		{Yes, exchange.Buy, 0.5714599, 10, 0},
		{No, exchange.Buy, 1 - 0.5994371, 10, 0},
	})
	// MaxHorizon caps T−t: at 0 inventory the spread is then the k term alone.
	m3, _ := NewAvellaneda(AvellanedaParams{Gamma: 2, K: 20, Horizon: time.Hour, MaxHorizon: time.Nanosecond, InventoryUnit: 100, Ladder: Ladder{Size: 10, Levels: 1}})
	s.Position[Yes] = d("0")
	q := m3.Quote(nil, s, st)
	approx(t, "capped bid", Logit(q[0].Price), math.Log(1.5)-math.Log(1.1)/2, 1e-6)
	if m.Quote(nil, s, nil) != nil {
		t.Fatal("quoted without state")
	}
}

func TestGLFTWorkedExample(t *testing.T) {
	// γ = 0.5, k = 10, A = 0.2, σ² = 1e-4 /s, q = 2, fair 0.5 (x = 0)
	// c1 = (1/γ)·ln(1 + γ/k) = 2·ln 1.05 = 0.0975803
	// (1 + γ/k)^(1 + k/γ) = 1.05^21 = 2.7859626; σ²γ/(2kA) = 5e-5/4 = 1.25e-5
	// c2 = sqrt(1.25e-5 · 2.7859626) = sqrt(3.4824533e-5) = 0.0059012
	// δb = c1 + (2q+1)/2·c2 = 0.0975803 + 2.5·0.0059012 = 0.1123334
	// δa = c1 − (2q−1)/2·c2 = 0.0975803 − 1.5·0.0059012 = 0.0887285
	// bid = sigmoid(−0.1123334) = 0.4719461, ask = sigmoid(0.0887285) = 0.5221676
	db, da := GLFTDistances(2, 0.5, 1e-4, 10, 0.2)
	approx(t, "δb", db, 0.1123334, 1e-7)
	approx(t, "δa", da, 0.0887285, 1e-7)
	m, err := NewGLFT(GLFTParams{Gamma: 0.5, K: 10, A: 0.2, InventoryUnit: 50, Ladder: Ladder{Size: 7, Levels: 2, Spacing: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	s := book("0.01", "0.49", "0.51", "", "")
	s.Position[Yes] = d("100") // q = 2
	got := m.Quote(nil, s, fixedState(t, 0.5, 1e-4, 5, 5))
	// Level 1 sits 0.1 logit further out: sigmoid(−0.2123334) = 0.4471152,
	// sigmoid(0.1887285) = 0.5470426.
	checkQuotes(t, got, []dq{
		{Yes, exchange.Buy, 0.4719461, 7, 0}, {No, exchange.Buy, 1 - 0.5221676, 7, 0},
		{Yes, exchange.Buy, 0.4471152, 7, 1}, {No, exchange.Buy, 1 - 0.5470426, 7, 1},
	})
}

func TestLadderSpreadBounds(t *testing.T) {
	// A-S with a tiny spread, widened to MinSpread 0.04 around its middle.
	m, _ := NewAvellaneda(AvellanedaParams{Gamma: 0.01, K: 1e6, Horizon: time.Second, InventoryUnit: 1,
		Ladder: Ladder{Size: 1, Levels: 1, MinSpread: 0.04}})
	s := book("0.01", "0.49", "0.51", "", "")
	got := m.Quote(nil, s, fixedState(t, 0.5, 1e-9, 1, 1))
	checkQuotes(t, got, []dq{{Yes, exchange.Buy, 0.48, 1, 0}, {No, exchange.Buy, 0.48, 1, 0}})
	// And a huge one narrowed to MaxSpread 0.10.
	m, _ = NewAvellaneda(AvellanedaParams{Gamma: 1, K: 0.01, Horizon: time.Second, InventoryUnit: 1,
		Ladder: Ladder{Size: 1, Levels: 1, MaxSpread: 0.10}})
	got = m.Quote(nil, s, fixedState(t, 0.5, 1e-9, 1, 1))
	checkQuotes(t, got, []dq{{Yes, exchange.Buy, 0.45, 1, 0}, {No, exchange.Buy, 0.45, 1, 0}})
}

func TestModelValidate(t *testing.T) {
	lad := Ladder{Size: 1, Levels: 1}
	cases := []struct {
		err   error
		field string
	}{
		{func() error { _, e := NewBands(BandsParams{}); return e }(), "Offsets"},
		{func() error { _, e := NewBands(BandsParams{Offsets: []float64{0.01}, Sizes: nil}); return e }(), "Sizes"},
		{func() error {
			_, e := NewBands(BandsParams{Offsets: []float64{0.02, 0.01}, Sizes: []float64{1, 1}})
			return e
		}(), "Offsets[1]"},
		{func() error { _, e := NewBands(BandsParams{Offsets: []float64{0.01}, Sizes: []float64{0}}); return e }(), "Sizes[0]"},
		{func() error {
			_, e := NewAvellaneda(AvellanedaParams{Gamma: 0, Horizon: time.Hour, InventoryUnit: 1, Ladder: lad})
			return e
		}(), "Gamma"},
		{func() error {
			_, e := NewAvellaneda(AvellanedaParams{Gamma: 1, K: -1, Horizon: time.Hour, InventoryUnit: 1, Ladder: lad})
			return e
		}(), "K"},
		{func() error {
			_, e := NewAvellaneda(AvellanedaParams{Gamma: 1, InventoryUnit: 1, Ladder: lad})
			return e
		}(), "Horizon"},
		{func() error {
			_, e := NewAvellaneda(AvellanedaParams{Gamma: 1, Horizon: time.Hour, MaxHorizon: -1, InventoryUnit: 1, Ladder: lad})
			return e
		}(), "MaxHorizon"},
		{func() error {
			_, e := NewAvellaneda(AvellanedaParams{Gamma: 1, Horizon: time.Hour, Ladder: lad})
			return e
		}(), "InventoryUnit"},
		{func() error {
			_, e := NewAvellaneda(AvellanedaParams{Gamma: 1, Horizon: time.Hour, InventoryUnit: 1, Ladder: Ladder{Levels: 1}})
			return e
		}(), "Size"},
		{func() error { _, e := NewGLFT(GLFTParams{Gamma: 1, A: -2, InventoryUnit: 1, Ladder: lad}); return e }(), "A"},
		{func() error {
			_, e := NewGLFT(GLFTParams{Gamma: 1, InventoryUnit: 1, Ladder: Ladder{Size: 1, Levels: 2}})
			return e
		}(), "Spacing"},
		{func() error {
			_, e := NewGLFT(GLFTParams{Gamma: 1, InventoryUnit: 1, Ladder: Ladder{Size: 1, Levels: 1, MinSpread: 0.2, MaxSpread: 0.1}})
			return e
		}(), "MaxSpread"},
		{func() error {
			_, e := NewGLFT(GLFTParams{Gamma: 1, InventoryUnit: 1, Ladder: Ladder{Size: 1}})
			return e
		}(), "Levels"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.field) {
			t.Errorf("want an error naming %s, got %v", c.field, c.err)
		}
	}
}

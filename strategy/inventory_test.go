package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

// market is a one-market world for the inventory tests: the others' books
// around a fair value, our resting orders and our position. Fills take our
// orders at their price; the exchange's merge of two complementary SELLs is
// just both SELLs filling.
type market struct {
	fair  float64
	pos   [2]decimal.Decimal
	open  []OpenOrder
	now   time.Time
	last  [2][2]time.Time
	ids   int
	fills int
}

func (m *market) snapshot() *Snapshot {
	y := func(p float64) string { return decimal.NewFromFloat(p).Round(2).String() }
	b := book("0.01", y(m.fair-0.03), y(m.fair+0.03), y(1-m.fair-0.03), y(1-m.fair+0.03))
	b.MinSize = d("5")
	b.Now = m.now
	s := withOwn(b, m.open)
	s.Position = m.pos
	s.LastFill = m.last
	return s
}

// apply carries out a pass: cancels go, places rest.
func (m *market) apply(res PassResult) {
	m.open = staying(m.open, res.Cancels)
	for _, o := range res.Places {
		m.ids++
		m.open = append(m.open, OpenOrder{ID: fmt.Sprintf("o%d", m.ids), Outcome: o.Outcome, Side: o.Side, Price: o.Price, Size: o.Size})
	}
}

// fill fills order i for size (at most its remaining size).
func (m *market) fill(i int, size decimal.Decimal) {
	o := &m.open[i]
	size = decimal.Min(size, o.Size)
	if o.Side == exchange.Buy {
		m.pos[o.Outcome] = m.pos[o.Outcome].Add(size)
	} else {
		m.pos[o.Outcome] = m.pos[o.Outcome].Sub(size)
	}
	m.last[o.Outcome][sideIdx(o.Side)] = m.now
	m.fills++
	if o.Size = o.Size.Sub(size); o.Size.IsZero() {
		m.open = append(m.open[:i], m.open[i+1:]...)
	}
}

// sizeLimited reports whether r is a limit the planner sizes quotes within:
// the planner must never have such an order refused.
func sizeLimited(r risk.Reason) bool { return sizeBound(r) }

func TestSellFirst(t *testing.T) {
	chk, err := risk.NewChecker(risk.Limits{MaxMarketShares: d("100"), MaxTotalAtRisk: d("1000")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		allowSell bool
		want      string
	}{
		// Long 100 YES, at the position limit: the ask sells YES, the bid
		// (BUY YES) is held back by the limit.
		{"sell first", true, "SELL YES 10@0.52"},
		// BUY-only: the ask is a BUY NO, which unwinds the position; the
		// bid is still held back.
		{"buy only", false, "BUY NO 10@0.48"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model, err := NewBands(BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}, AllowSell: tc.allowSell})
			if err != nil {
				t.Fatal(err)
			}
			q := Quoter{Model: model, Tolerance: Tolerance{PriceTicks: 1, SizeFrac: 0.1}, Checker: chk}
			m := &market{fair: 0.5, pos: [2]decimal.Decimal{d("100"), d("0")}, now: t0}
			res, err := q.Pass(m.snapshot(), nil, Unlimited(), risk.Totals{})
			if err != nil {
				t.Fatal(err)
			}
			if got := placesString(Plan{Places: res.Places}); got != tc.want || len(res.Rejected) != 0 {
				t.Fatalf("places %q, rejected %+v; want %q", got, res.Rejected, tc.want)
			}
			if res.Limit() != risk.ReasonMarketShares || res.Limited[risk.ReasonMarketShares] != 1 {
				t.Fatalf("limited %v, limit %v", res.Limited, res.Limit())
			}
		})
	}
}

// TestPairUnwound holds a pair of 45 YES + 45 NO: it is offered back on
// both sides, nothing is bought while it covers the quotes (20 a side), and
// as the SELLs fill (merged by the exchange) the pair goes and its
// collateral with it.
func TestPairUnwound(t *testing.T) {
	model, err := NewBands(BandsParams{Offsets: []float64{0.01, 0.03}, Sizes: []float64{10, 10}, AllowSell: true})
	if err != nil {
		t.Fatal(err)
	}
	chk, err := risk.NewChecker(risk.Limits{MaxMarketShares: d("500"), MaxTotalAtRisk: d("1000")})
	if err != nil {
		t.Fatal(err)
	}
	q := Quoter{Model: model, Tolerance: Tolerance{PriceTicks: 1, SizeFrac: 0.1}, Checker: chk}
	m := &market{fair: 0.5, pos: [2]decimal.Decimal{d("45"), d("45")}, now: t0}
	for cycle := 0; ; cycle++ {
		if cycle > 20 {
			t.Fatalf("the pair is not unwound after 20 cycles: position %v", m.pos)
		}
		res, err := q.Pass(m.snapshot(), nil, Unlimited(), risk.Totals{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rejected) != 0 {
			t.Fatalf("cycle %d: rejected %+v", cycle, res.Rejected)
		}
		m.apply(res)
		covers := m.pos[Yes].GreaterThanOrEqual(d("20")) && m.pos[No].GreaterThanOrEqual(d("20"))
		held := m.pos[Yes].GreaterThanOrEqual(d("5")) && m.pos[No].GreaterThanOrEqual(d("5"))
		for _, o := range m.open {
			if covers && o.Side == exchange.Buy {
				t.Fatalf("cycle %d: buys %v while a pair %v is held", cycle, o, m.pos)
			}
		}
		if !held {
			break
		}
		// The level-0 SELLs of both outcomes meet: the exchange merges them.
		for _, o := range []Outcome{Yes, No} {
			for i := range m.open {
				if x := m.open[i]; x.Outcome == o && x.Side == exchange.Sell && x.Price.Equal(d("0.51")) {
					m.fill(i, x.Size)
					break
				}
			}
		}
		m.now = m.now.Add(time.Second)
	}
	if m.pos[Yes].GreaterThanOrEqual(d("5")) && m.pos[No].GreaterThanOrEqual(d("5")) {
		t.Fatalf("pair left: %v", m.pos)
	}
	if at := risk.MarketTotals(0.5, [2]decimal.Decimal{decimal.Min(m.pos[Yes], m.pos[No]), decimal.Min(m.pos[Yes], m.pos[No])}, nil); !at.AtRisk.IsZero() {
		t.Fatalf("a pair holds collateral at risk: %s", at.AtRisk)
	}
}

// TestInventoryProperty runs random markets for many cycles with random
// fills and fair-value moves, through the whole pass (model, fit, planner,
// risk), in both modes (sell first and BUY only), and checks that the
// planner never has an order refused by a size or capital limit, never
// leaves more than the position limits at risk, never offers more shares
// than are held, and never commits collateral past the budget (except to
// unwind a position, which the risk rules allow).
func TestInventoryProperty(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 30
	}
	var places, limited, fills int
	for seed := range uint64(n) {
		p, l, f := inventoryScenario(t, seed)
		places, limited, fills = places+p, limited+l, fills+f
	}
	t.Logf("%d runs of 150 cycles: %d orders placed, %d quotes held back by a limit, %d fills", n, places, limited, fills)
	// The generator must reach the limits and fill orders, or the test
	// says nothing.
	if limited < n || fills < n || places < n {
		t.Fatalf("weak scenarios: %d places, %d quotes held back, %d fills over %d runs", places, limited, fills, n)
	}
}

func inventoryScenario(t *testing.T, seed uint64) (places, limited, fills int) {
	r := rand.New(rand.NewPCG(seed, 0x1a7e))
	dec := func(lo, hi float64) decimal.Decimal { return decimal.NewFromFloat(lo + (hi-lo)*r.Float64()).Round(2) }
	lim := risk.Limits{MaxMarketShares: dec(30, 200), MaxTotalShares: dec(200, 600), MaxTotalAtRisk: dec(20, 150)}
	if r.IntN(2) == 0 {
		lim.MaxMarketAtRisk = dec(10, 100)
	}
	if r.IntN(2) == 0 {
		lim.MaxOrderSize, lim.MaxOrderNotional = dec(5, 40), dec(3, 20)
	}
	if r.IntN(2) == 0 {
		lim.FillCooldown = time.Duration(1+r.IntN(3)) * time.Second
	}
	chk, err := risk.NewChecker(lim)
	if err != nil {
		t.Fatal(err)
	}
	levels := 1 + r.IntN(3)
	bp := BandsParams{AllowSell: r.IntN(3) != 0}
	for i := range levels {
		bp.Offsets = append(bp.Offsets, 0.01+0.02*float64(i)+0.01*r.Float64())
		bp.Sizes = append(bp.Sizes, 5+30*r.Float64())
	}
	model, err := NewBands(bp)
	if err != nil {
		t.Fatal(err)
	}
	q := Quoter{Model: model, Tolerance: Tolerance{PriceTicks: r.IntN(2), SizeFrac: []float64{0, 0.1, 0.3}[r.IntN(3)]}, Checker: chk}
	others := risk.Totals{Shares: dec(0, 150), AtRisk: dec(0, 15)}
	m := &market{fair: 0.2 + 0.6*r.Float64(), now: t0}
	// Start with a random position inside the limits (a pair and a net).
	pair := dec(0, 30)
	m.pos = [2]decimal.Decimal{pair, pair}
	m.pos[r.IntN(2)] = pair.Add(dec(0, 25))

	for cycle := range 150 {
		s := m.snapshot()
		res, err := q.Pass(s, nil, Unlimited(), others)
		if err != nil {
			t.Fatal(err)
		}
		where := fmt.Sprintf("seed %d cycle %d (limits %+v, sell %v, position %v)", seed, cycle, lim, bp.AllowSell, m.pos)
		for _, rj := range res.Rejected {
			if sizeLimited(rj.Err.Reason) {
				t.Fatalf("%s: %v refused: %v", where, rj.Order.Risk(), rj.Err)
			}
		}
		for _, n := range res.Limited {
			limited += n
		}
		places += len(res.Places)
		stay := toRisk(staying(m.open, res.Cancels))
		before := risk.MarketTotals(res.Fair, m.pos, stay) // the fair value the checks used
		unwind := decimal.Zero                             // notional of new BUYs against the net position
		net := m.pos[Yes].Sub(m.pos[No])
		for _, o := range res.Places {
			if o.Side == exchange.Buy && (bidLike(o.Outcome, o.Side) && net.IsNegative() || !bidLike(o.Outcome, o.Side) && net.IsPositive()) {
				unwind = unwind.Add(o.Price.Mul(o.Size))
			}
		}
		m.apply(res)
		after := risk.MarketTotals(res.Fair, m.pos, toRisk(m.open))

		// Positions: the worst case (every bid-like order filled, or every
		// ask-like one) stays within the limits: fills never take it out.
		if after.Shares.GreaterThan(lim.MaxMarketShares) || after.Shares.Add(others.Shares).GreaterThan(lim.MaxTotalShares) {
			t.Fatalf("%s: worst-case shares %s (others %s) over the limits", where, after.Shares, others.Shares)
		}
		// Shares offered never exceed the shares held.
		var offered [2]decimal.Decimal
		for _, o := range m.open {
			if o.Side == exchange.Sell {
				offered[o.Outcome] = offered[o.Outcome].Add(o.Size)
			}
		}
		for o := range 2 {
			if offered[o].GreaterThan(m.pos[o]) {
				t.Fatalf("%s: %s %v offered, %s held", where, offered[o], Outcome(o), m.pos[o])
			}
		}
		// Collateral: the plan never takes the collateral at risk past the
		// budget (what the other markets leave of it), unless it already
		// was (fills and fair-value moves change the positions' marks) or
		// the excess unwinds the position.
		room := lim.MaxTotalAtRisk.Sub(others.AtRisk)
		if !lim.MaxMarketAtRisk.IsZero() {
			room = decimal.Min(room, lim.MaxMarketAtRisk)
		}
		if after.AtRisk.GreaterThan(decimal.Max(room, before.AtRisk).Add(unwind)) {
			t.Fatalf("%s: collateral at risk %s over the budget %s (before %s, unwinding %s)", where, after.AtRisk, room, before.AtRisk, unwind)
		}

		// The market moves and some of our orders fill.
		m.now = m.now.Add(time.Second)
		m.fair = min(max(m.fair+0.01*r.NormFloat64(), 0.08), 0.92)
		for i := len(m.open) - 1; i >= 0; i-- {
			o := m.open[i]
			dist := math.Abs(toYes(o.Outcome, o.Price.InexactFloat64()) - m.fair)
			if r.Float64() < 0.3*math.Exp(-dist*40) {
				sz := o.Size
				if r.IntN(2) == 0 {
					sz = sz.Mul(decimal.NewFromFloat(r.Float64())).Round(2)
				}
				if sz.IsPositive() {
					m.fill(i, sz)
				}
			}
		}
	}
	return places, limited, m.fills
}

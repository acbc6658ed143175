package strategy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/quick"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

func quickConfig(n int) *quick.Config {
	if testing.Short() {
		n /= 10
	}
	return &quick.Config{MaxCount: n, Rand: nil}
}

// staying returns the open orders that a plan does not cancel.
func staying(open []OpenOrder, cancels []OpenOrder) []OpenOrder {
	var out []OpenOrder
	for _, o := range open {
		if !slices.ContainsFunc(cancels, func(c OpenOrder) bool { return c.ID == o.ID }) {
			out = append(out, o)
		}
	}
	return out
}

func asOpen(places []Order) []OpenOrder {
	var out []OpenOrder
	for i, o := range places {
		out = append(out, OpenOrder{ID: "p" + string(rune('0'+i)), Outcome: o.Outcome, Side: o.Side, Price: o.Price, Size: o.Size})
	}
	return out
}

// checkPlacesVsRest asserts that no new order crosses another new order or
// one that stays.
func checkPlacesVsRest(t *testing.T, tick decimal.Decimal, places, stay []OpenOrder) {
	t.Helper()
	for _, p := range places {
		for _, o := range append(slices.Clone(stay), places...) {
			checkNoSelfCross(t, tick, []OpenOrder{p, o})
		}
	}
}

// planScenario runs one random planner scenario and checks every property.
func planScenario(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	others, fair := genBook(r)
	opens := genOpen(r, others, fair)
	s := withOwn(others, opens)
	desired := genDesired(r, fair)
	tol := genTolerance(r)
	b := Unlimited()
	if r.IntN(2) == 0 {
		b = Budget{Places: r.IntN(5), Cancels: r.IntN(5)}
	}
	var p Planner
	plan, err := p.Plan(desired, s, tol, b)
	if err != nil {
		t.Fatal(err)
	}
	checkPlaces(t, s, plan.Places)
	if len(plan.Places) > b.Places || len(plan.Cancels) > b.Cancels {
		t.Fatalf("over budget %+v: %d places %d cancels", b, len(plan.Places), len(plan.Cancels))
	}
	for _, k := range plan.Kept {
		if slices.ContainsFunc(plan.Cancels, func(c OpenOrder) bool { return c.ID == k.ID }) {
			t.Fatalf("%s both kept and cancelled", k.ID)
		}
	}
	stay := staying(opens, plan.Cancels)
	checkPlacesVsRest(t, s.Tick, asOpen(plan.Places), stay)
	checkNoSelfCross(t, s.Tick, plan.Kept)
	if b != Unlimited() {
		return
	}
	if len(stay) != len(plan.Kept) {
		t.Fatalf("unlimited budget left %d orders, kept %d", len(stay), len(plan.Kept))
	}
	final := finalSet(plan)
	checkNoSelfCross(t, s.Tick, final)
	// The plan's own result needs nothing more.
	s2 := withOwn(others, final)
	plan2, err := p.Plan(desired, s2, tol, Unlimited())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan2.Places)+len(plan2.Cancels) != 0 {
		t.Fatalf("not idempotent (seed %d): places %s cancels %s\nfinal %+v\ndesired %+v", seed, placesString(plan2), ids(plan2.Cancels), final, desired)
	}
}

func TestPlannerProperties(t *testing.T) {
	f := func(seed uint64) bool { planScenario(t, seed); return !t.Failed() }
	if err := quick.Check(f, quickConfig(5000)); err != nil {
		t.Fatal(err)
	}
}

// FuzzPlanner explores the same properties from fuzzed seeds.
func FuzzPlanner(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 42, 1 << 40, math.MaxUint64} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { planScenario(t, seed) })
}

// genModel returns a random model stack.
func genModel(r *rand.Rand) Model {
	lad := Ladder{Size: 1 + 49*r.Float64(), Levels: 1 + r.IntN(3), Spacing: 0.05 + 0.25*r.Float64(), AllowSell: r.IntN(2) == 0}
	var m Model
	var err error
	switch r.IntN(3) {
	case 0:
		n := 1 + r.IntN(3)
		p := BandsParams{AllowSell: r.IntN(2) == 0}
		off := 0.0
		for range n {
			off += 0.002 + 0.03*r.Float64()
			p.Offsets = append(p.Offsets, off)
			p.Sizes = append(p.Sizes, 1+49*r.Float64())
		}
		m, err = NewBands(p)
	case 1:
		m, err = NewAvellaneda(AvellanedaParams{Gamma: 0.1 + 5*r.Float64(), K: float64(r.IntN(2)) * (5 + 45*r.Float64()),
			Horizon: time.Duration(1+r.IntN(720)) * time.Hour, InventoryUnit: 10 + 90*r.Float64(), Ladder: lad})
	default:
		m, err = NewGLFT(GLFTParams{Gamma: 0.1 + 5*r.Float64(), InventoryUnit: 10 + 90*r.Float64(), Ladder: lad})
	}
	if err != nil {
		panic(err)
	}
	rp := DefaultRewardParams()
	rp.Enabled, rp.Always = r.IntN(2) == 0, r.IntN(2) == 0
	if m, err = WithRewards(m, rp); err != nil {
		panic(err)
	}
	if r.IntN(2) == 0 {
		m, err = WithEndDate(m, EndDateParams{Taper: 48 * time.Hour, ReduceOnly: 12 * time.Hour, Stop: time.Hour, MinFactor: 0.3})
		if err != nil {
			panic(err)
		}
	}
	return m
}

func genLimits(r *rand.Rand) risk.Limits {
	pick := func(lo, hi float64) decimal.Decimal {
		if r.IntN(3) == 0 {
			return decimal.Zero
		}
		return decimal.NewFromFloat(lo + (hi-lo)*r.Float64()).Round(2)
	}
	return risk.Limits{
		MaxMarketShares:  pick(20, 400),
		MaxTotalShares:   pick(100, 2000),
		MaxMarketAtRisk:  pick(10, 200),
		MaxTotalAtRisk:   pick(50, 1000),
		MaxOrderSize:     pick(5, 40),
		MaxOrderNotional: pick(2, 20),
		MaxOpenPerMarket: r.IntN(9),
		MaxOpenTotal:     r.IntN(30),
		Collar:           pick(0.02, 0.2),
		FillCooldown:     time.Duration(r.IntN(3)) * 10 * time.Second,
	}
}

// pipelineScenario runs snapshot → model → planner → risk on a random market
// and checks that every order sent honours the grid, the book and the limits.
func pipelineScenario(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0xbeef))
	others, fair := genBook(r)
	opens := genOpen(r, others, fair)
	s := withOwn(others, opens)
	for o := range 2 {
		for sd := range 2 {
			if r.IntN(4) == 0 {
				s.LastFill[o][sd] = t0.Add(-time.Duration(r.IntN(30)) * time.Second)
			}
		}
	}
	st, _ := NewMarketState(DefaultEstimatorParams())
	st.Observe(s)
	lim := genLimits(r)
	chk, err := risk.NewChecker(lim)
	if err != nil {
		t.Fatal(err)
	}
	q := Quoter{Model: genModel(r), Tolerance: genTolerance(r), Checker: chk}
	b := Unlimited()
	if r.IntN(2) == 0 {
		b = Budget{Places: r.IntN(5), Cancels: r.IntN(5)}
	}
	others2 := risk.Totals{Shares: decimal.NewFromInt(int64(r.IntN(500))), AtRisk: decimal.NewFromInt(int64(r.IntN(300))), Open: r.IntN(20)}
	res, err := q.Pass(s, st, b, others2)
	if err != nil {
		t.Fatal(err)
	}
	checkPlaces(t, s, res.Places)
	stay := staying(opens, res.Cancels)
	placed := asOpen(res.Places)
	checkPlacesVsRest(t, s.Tick, placed, stay)

	n := len(res.Places)
	if n == 0 {
		return
	}
	if lim.MaxOpenPerMarket > 0 && len(stay)+n > lim.MaxOpenPerMarket {
		t.Fatalf("%d staying + %d new > %d open orders", len(stay), n, lim.MaxOpenPerMarket)
	}
	if lim.MaxOpenTotal > 0 && others2.Open+len(stay)+n > lim.MaxOpenTotal {
		t.Fatalf("total open orders over %d", lim.MaxOpenTotal)
	}
	for _, o := range res.Places {
		if !lim.MaxOrderSize.IsZero() && o.Size.GreaterThan(lim.MaxOrderSize) {
			t.Fatalf("%v over max size %s", o, lim.MaxOrderSize)
		}
		if !lim.MaxOrderNotional.IsZero() && o.Size.Mul(o.Price).GreaterThan(lim.MaxOrderNotional) {
			t.Fatalf("%v over max notional %s", o, lim.MaxOrderNotional)
		}
		if !lim.Collar.IsZero() {
			tf := toYes(o.Outcome, res.Fair)
			if math.Abs(o.Price.InexactFloat64()-tf) > lim.Collar.InexactFloat64()+1e-9 {
				t.Fatalf("%v outside the collar %s of %v", o, lim.Collar, tf)
			}
		}
		if last := s.LastFill[o.Outcome][sideIdx(o.Side)]; lim.FillCooldown > 0 && !last.IsZero() && s.Now.Sub(last) < lim.FillCooldown {
			t.Fatalf("%v inside the cool-down", o)
		}
		if o.Side == exchange.Sell && o.Size.GreaterThan(s.Position[o.Outcome]) {
			t.Fatalf("%v sells more than held", o)
		}
	}
	before := risk.MarketTotals(res.Fair, s.Position, toRisk(stay))
	after := risk.MarketTotals(res.Fair, s.Position, toRisk(append(stay, placed...)))
	if !lim.MaxMarketShares.IsZero() && after.Shares.GreaterThan(decimal.Max(lim.MaxMarketShares, before.Shares)) {
		t.Fatalf("worst-case shares %s over %s (before %s)", after.Shares, lim.MaxMarketShares, before.Shares)
	}
	if !lim.MaxTotalShares.IsZero() && after.Shares.Add(others2.Shares).GreaterThan(decimal.Max(lim.MaxTotalShares, before.Shares.Add(others2.Shares))) {
		t.Fatalf("total worst-case shares over %s", lim.MaxTotalShares)
	}
}

func toRisk(oo []OpenOrder) []risk.Order {
	var out []risk.Order
	for _, o := range oo {
		out = append(out, risk.Order{Outcome: int(o.Outcome), Side: o.Side, Price: o.Price, Size: o.Size})
	}
	return out
}

func TestPipelineProperties(t *testing.T) {
	f := func(seed uint64) bool { pipelineScenario(t, seed); return !t.Failed() }
	if err := quick.Check(f, quickConfig(3000)); err != nil {
		t.Fatal(err)
	}
}

func FuzzPipeline(f *testing.F) {
	for _, s := range []uint64{0, 3, 99, 1 << 33} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { pipelineScenario(t, seed) })
}

package strategy

import (
	"fmt"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

// benchBook returns a snapshot with five levels a side on both tokens around
// mid (in cents), twenty old trades and reward terms.
func benchBook(mid int64) *Snapshot {
	s := &Snapshot{ConditionID: "0xbench", Tick: d("0.01"), MinSize: d("5"), Now: t0,
		Rewards: RewardTerms{MinSize: d("20"), MaxSpread: d("3"), DailyRate: d("100")},
		EndDate: t0.Add(30 * 24 * time.Hour)}
	s.Tokens[Yes].TokenID, s.Tokens[No].TokenID = "Y", "N"
	for i := range int64(5) {
		sz := decimal.New(10000+1000*i, -2)
		s.Tokens[Yes].Bids = append(s.Tokens[Yes].Bids, exchange.PriceLevel{Price: decimal.New(mid-2-i, -2), Size: sz})
		s.Tokens[Yes].Asks = append(s.Tokens[Yes].Asks, exchange.PriceLevel{Price: decimal.New(mid+2+i, -2), Size: sz})
		s.Tokens[No].Bids = append(s.Tokens[No].Bids, exchange.PriceLevel{Price: decimal.New(100-mid-2-i, -2), Size: sz})
		s.Tokens[No].Asks = append(s.Tokens[No].Asks, exchange.PriceLevel{Price: decimal.New(100-mid+2+i, -2), Size: sz})
	}
	for i := range 20 {
		s.Trades = append(s.Trades, TradePrint{Outcome: Outcome(i % 2), Side: exchange.Buy, Price: decimal.New(mid+int64(i%3), -2),
			Size: d("10"), Time: t0.Add(-time.Duration(20-i) * time.Second)})
	}
	s.Position = [2]decimal.Decimal{d("40"), d("10")}
	return s
}

type benchMarket struct {
	books [2]*Snapshot
	st    *MarketState
	q     Quoter
	open  []OpenOrder
}

func newBenchMarket(b *testing.B, model Model, chk *risk.Checker) *benchMarket {
	st, err := NewMarketState(DefaultEstimatorParams())
	if err != nil {
		b.Fatal(err)
	}
	return &benchMarket{books: [2]*Snapshot{benchBook(50), benchBook(52)}, st: st,
		q: Quoter{Model: model, Tolerance: Tolerance{PriceTicks: 1, SizeFrac: 0.1}, Checker: chk}}
}

// pass runs one cycle on book i at time now, then makes the result the open
// orders (as the loop would after the exchange answered).
func (m *benchMarket) pass(b *testing.B, i int, now time.Time) {
	s := m.books[i]
	s.Now = now
	s.Open = m.open
	m.st.Observe(s)
	res, err := m.q.Pass(s, m.st, Unlimited(), risk.Totals{})
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Cancels) == 0 && len(res.Places) == 0 {
		return
	}
	m.open = append(m.open[:0], res.Kept...)
	for _, o := range res.Places {
		m.open = append(m.open, OpenOrder{ID: "x", Outcome: o.Outcome, Side: o.Side, Price: o.Price, Size: o.Size})
	}
}

func benchModels(b *testing.B) map[string]Model {
	bands, err := NewBands(BandsParams{Offsets: []float64{0.01, 0.03}, Sizes: []float64{20, 40}})
	if err != nil {
		b.Fatal(err)
	}
	as, err := NewAvellaneda(AvellanedaParams{Gamma: 1, Horizon: 24 * time.Hour, InventoryUnit: 50,
		Ladder: Ladder{Size: 25, Levels: 2, Spacing: 0.1}})
	if err != nil {
		b.Fatal(err)
	}
	end := EndDateParams{Taper: 48 * time.Hour, ReduceOnly: 6 * time.Hour, Stop: time.Hour, MinFactor: 0.5}
	wrap := func(m Model) Model {
		rw, err := WithRewards(m, RewardParams{Enabled: true, Always: true})
		if err != nil {
			b.Fatal(err)
		}
		w, err := WithEndDate(rw, end)
		if err != nil {
			b.Fatal(err)
		}
		return w
	}
	return map[string]Model{"bands": wrap(bands), "avellaneda": wrap(as)}
}

func benchChecker(b *testing.B) *risk.Checker {
	c, err := risk.NewChecker(risk.Limits{MaxMarketShares: d("1000"), MaxTotalShares: d("100000"), MaxMarketAtRisk: d("1000"),
		MaxTotalAtRisk: d("100000"), MaxOrderSize: d("100"), MaxOrderNotional: d("100"), MaxOpenPerMarket: 10,
		MaxOpenTotal: 2000, Collar: d("0.2"), FillCooldown: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkPass is one market's full pass: observe the snapshot, quote,
// plan, check. "steady" re-runs on an unchanged book (nothing to send);
// "requote" alternates between books two ticks apart, so every pass cancels
// and places orders.
func BenchmarkPass(b *testing.B) {
	for name, model := range benchModels(b) {
		for _, mode := range []string{"steady", "requote"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				m := newBenchMarket(b, model, benchChecker(b))
				now := t0
				m.pass(b, 0, now)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					now = now.Add(time.Second)
					book := 0
					if mode == "requote" {
						book = i % 2
					}
					m.pass(b, book, now)
				}
			})
		}
	}
}

// BenchmarkPass200Markets runs one cycle over 200 markets per op, half of
// them requoting.
func BenchmarkPass200Markets(b *testing.B) {
	models := benchModels(b)
	chk := benchChecker(b)
	markets := make([]*benchMarket, 200)
	for i := range markets {
		markets[i] = newBenchMarket(b, models[[]string{"bands", "avellaneda"}[i%2]], chk)
		markets[i].pass(b, 0, t0)
	}
	now := t0
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		now = now.Add(time.Second)
		for j, m := range markets {
			book := 0
			if j%2 == 0 {
				book = i % 2
			}
			m.pass(b, book, now)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200, "ns/market")
}

// BenchmarkPlan is the planner alone on a steady book.
func BenchmarkPlan(b *testing.B) {
	s := benchBook(50)
	desired := []Desired{
		{Outcome: Yes, Side: exchange.Buy, Price: 0.49, Size: 20}, {Outcome: No, Side: exchange.Buy, Price: 0.49, Size: 20},
		{Outcome: Yes, Side: exchange.Buy, Price: 0.47, Size: 40, Level: 1}, {Outcome: No, Side: exchange.Buy, Price: 0.47, Size: 40, Level: 1},
	}
	var p Planner
	plan, _ := p.Plan(desired, s, Tolerance{PriceTicks: 1}, Unlimited())
	s.Open = finalSet(plan)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		plan, _ = p.Plan(desired, s, Tolerance{PriceTicks: 1}, Unlimited())
	}
	if len(plan.Kept) != 4 {
		b.Fatal(fmt.Sprint("kept ", len(plan.Kept)))
	}
}

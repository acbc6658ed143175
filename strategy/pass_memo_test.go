package strategy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
)

// describe prints every part of a pass result.
func describe(r PassResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fair %v %v\ndesired %v\ncancels %v\nplaces %v\nkept %v\ndropped %d limited %v", r.Fair, r.HasFair,
		r.Desired, r.Cancels, r.Places, r.Kept, r.Dropped, r.Limited)
	for _, x := range r.Rejected {
		fmt.Fprintf(&b, "\nrejected %v: %v", x.Order, x.Err)
	}
	return b.String()
}

// memoStack is the daemon's default stack of models over the bands.
func memoStack(t *testing.T, touch bool) Model {
	t.Helper()
	var inner Model
	var err error
	if touch {
		inner, err = NewTouch(TouchParams{Size: 10, SkewShares: 15, AllowSell: true})
	} else {
		inner, err = NewBands(BandsParams{Offsets: []float64{0.01, 0.02, 0.04}, Sizes: []float64{10, 15, 25}, AllowSell: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	var m Model = WithMinSize(inner)
	rp := DefaultRewardParams()
	rp.Hold = 3 * time.Second
	if m, err = WithRewards(m, rp); err != nil {
		t.Fatal(err)
	}
	if m, err = WithAdverse(m, DefaultAdverseParams()); err != nil {
		t.Fatal(err)
	}
	if m, err = WithEndDate(m, EndDateParams{Taper: 40 * time.Second, ReduceOnly: 20 * time.Second, Stop: 5 * time.Second, MinFactor: 0.3}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPassMemoIsExact runs a quoter with Memo and one without side by side,
// each with its own market state, on the same random market: books that
// move or stay (a moved book gets new level slices), fills (the cool-down,
// the adverse-selection back-off and pause), our orders following the
// plans, the other markets' totals around the total limits, a reward
// decision held for a while, and an end date whose taper, reduce-only and
// stop phases the run goes through. Every pass must give the same result,
// and the memo must answer many of them.
func TestPassMemoIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	chk, err := risk.NewChecker(risk.Limits{MaxMarketShares: d("200"), MaxTotalShares: d("600"), MaxTotalAtRisk: d("400"),
		MaxOrderSize: d("100"), MaxOrderNotional: d("50"), MaxOpenTotal: 60, FillCooldown: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hits, passes := 0, 0
	for trial := range 20 {
		model := memoStack(t, trial%2 == 1) // the bands and the touch model in turn
		memo := &Quoter{Model: model, Tolerance: Tolerance{PriceTicks: 1, SizeFrac: 0.2}, Checker: chk, Memo: true}
		plain := &Quoter{Model: model, Tolerance: memo.Tolerance, Checker: chk}
		stM, _ := NewMarketState(DefaultEstimatorParams())
		stP, _ := NewMarketState(DefaultEstimatorParams())
		s := book("0.01", "0.49", "0.51", "0.49", "0.51")
		s.Rewards = RewardTerms{MinSize: d("20"), MaxSpread: d("3"), DailyRate: d("10")}
		end := t0.Add(time.Duration(60+rng.IntN(120)) * time.Second)
		if trial%4 != 0 {
			s.EndDate = end
		}
		others := risk.Totals{Shares: d("300"), AtRisk: d("200"), Open: 20}
		mid := 0.5
		var id int
		for step := range 400 {
			s.Now = t0.Add(time.Duration(step) * 500 * time.Millisecond)
			if rng.IntN(5) == 0 { // the book moves
				mid = min(max(mid+float64(rng.IntN(5)-2)*0.01, 0.1), 0.9)
				yb, ya := fmt.Sprintf("%.2f", mid-0.01), fmt.Sprintf("%.2f", mid+0.01)
				nb, na := fmt.Sprintf("%.2f", 1-mid-0.01), fmt.Sprintf("%.2f", 1-mid+0.01)
				nbk := book("0.01", yb, ya, nb, na)
				s.Tokens = nbk.Tokens
			}
			if rng.IntN(4) == 0 { // the other markets change
				others = risk.Totals{Shares: others.Shares.Add(df(float64(rng.IntN(81) - 40))),
					AtRisk: others.AtRisk.Add(df(float64(rng.IntN(41)-20) / 4)), Open: max(others.Open+rng.IntN(5)-2, 0)}
			}
			if rng.IntN(15) == 0 && len(s.Open) > 0 { // a fill of one of our orders
				o := s.Open[rng.IntN(len(s.Open))]
				s.LastFill[o.Outcome][map[exchange.Side]int{exchange.Buy: 0, exchange.Sell: 1}[o.Side]] = s.Now
				pos := s.Position[o.Outcome]
				if o.Side == exchange.Buy {
					pos = pos.Add(o.Size)
				} else {
					pos = decimal.Max(pos.Sub(o.Size), decimal.Zero)
				}
				s.Position[o.Outcome] = pos
				s.Open = slices.DeleteFunc(slices.Clone(s.Open), func(x OpenOrder) bool { return x.ID == o.ID })
				f := OwnFill{Outcome: o.Outcome, Side: o.Side, Price: o.Price.InexactFloat64(), Size: o.Size.InexactFloat64(), Time: s.Now, Mid: mid}
				stM.Adverse.AddFill(f, s)
				stP.Adverse.AddFill(f, s)
			}
			stM.Observe(s)
			stP.Observe(s)
			before := memo.recalled
			got, err1 := memo.Pass(s, stM, Unlimited(), others)
			want, err2 := plain.Pass(s, stP, Unlimited(), others)
			if (err1 != nil) != (err2 != nil) {
				t.Fatalf("trial %d step %d: errors %v and %v", trial, step, err1, err2)
			}
			if g, w := describe(got), describe(want); g != w {
				t.Fatalf("trial %d step %d (%s): with the memo\n%s\nwithout\n%s", trial, step, s.Now.Sub(t0), g, w)
			}
			if memo.recalled > before {
				hits++
			}
			passes++
			// Our orders follow the plan.
			next := slices.Clone(want.Kept)
			for _, p := range want.Places {
				id++
				next = append(next, OpenOrder{ID: fmt.Sprint(id), Outcome: p.Outcome, Side: p.Side, Price: p.Price, Size: p.Size})
			}
			slices.SortFunc(next, func(a, b OpenOrder) int { return strings.Compare(a.ID, b.ID) })
			if len(want.Places) > 0 || len(want.Cancels) > 0 {
				s.Open = next
			}
		}
	}
	t.Logf("the memo answered %d of %d passes", hits, passes)
	if hits < passes/4 {
		t.Errorf("the memo answered %d of %d passes: want many", hits, passes)
	}
}

package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// logitCase is one random market for the Avellaneda–Stoikov and GLFT
// property test.
type logitCase struct {
	s     *Snapshot
	st    *MarketState
	fair  float64
	model Model
	name  string
}

// genLogitCase draws a fair value, a visible book around it on both tokens
// (tick 0.01 or 0.001), a volatility, an inventory, an end date (none, or up
// to 60 days away) and one of the two models with random parameters.
func genLogitCase(t *testing.T, r *rand.Rand) logitCase {
	t.Helper()
	tick := []string{"0.01", "0.001"}[r.IntN(2)]
	tf := d(tick).InexactFloat64()
	T := int64(math.Round(1 / tf))
	fair := 0.03 + 0.94*r.Float64()
	fn := int64(math.Round(fair * float64(T)))
	half := int64(1 + r.IntN(5))
	if tick == "0.001" {
		half *= 1 + int64(r.IntN(10))
	}
	bidN, askN := max(fn-half, 1), min(fn+half, T-1)
	if askN <= bidN {
		bidN, askN = fn-1, fn+1
	}
	px := func(n int64) string { return decimal.New(n, 0).Mul(d(tick)).String() }
	// The NO book mirrors the YES book, sometimes a tick tighter, so the
	// opposite best may come from either token.
	noBid, noAsk := T-askN+int64(r.IntN(2)), T-bidN-int64(r.IntN(2))
	if noAsk <= noBid {
		noBid, noAsk = T-askN, T-bidN
	}
	s := book(tick, px(bidN), px(askN), px(noBid), px(noAsk))
	net := math.Round((r.Float64()*2 - 1) * 500)
	if r.IntN(4) == 0 {
		net = 0
	}
	if net >= 0 {
		s.Position[Yes] = decimal.NewFromFloat(net)
	} else {
		s.Position[No] = decimal.NewFromFloat(-net)
	}
	if r.IntN(3) > 0 {
		s.EndDate = t0.Add(time.Duration(r.Float64() * float64(60*24*time.Hour)))
	}
	sigma2 := math.Pow(10, -8+5*r.Float64()) // 1e-8 to 1e-3 per second
	k := []float64{0.5, 1.5, 15, 50}[r.IntN(4)]
	a := []float64{0.01, 0.5, 1}[r.IntN(3)]
	st := fixedState(t, fair, sigma2, a, k)
	ladder := Ladder{Size: 10, Levels: 1 + r.IntN(3), Spacing: 0.05, MinSpread: []float64{0, 0.01, 0.02}[r.IntN(3)], MaxSpread: []float64{0, 0.1, 0.3}[r.IntN(3)]}
	gamma := []float64{0.01, 0.1, 1}[r.IntN(3)]
	var m Model
	var name string
	var err error
	if r.IntN(2) == 0 {
		m, err = NewAvellaneda(AvellanedaParams{Gamma: gamma, K: []float64{0, k}[r.IntN(2)], Horizon: []time.Duration{time.Hour, 24 * time.Hour}[r.IntN(2)],
			InventoryUnit: 10, Ladder: ladder})
		name = "avellaneda"
	} else {
		m, err = NewGLFT(GLFTParams{Gamma: gamma, K: []float64{0, k}[r.IntN(2)], A: []float64{0, a}[r.IntN(2)], InventoryUnit: 10, Ladder: ladder})
		name = "glft"
	}
	if err != nil {
		t.Fatal(err)
	}
	name = fmt.Sprintf("%s γ=%v k=%v σ²=%.3g net=%v tick=%s fair=%.4f book %s/%s NO %s/%s end %v ladder %+v", name, gamma, k, sigma2, net, tick, fair,
		px(bidN), px(askN), px(noBid), px(noAsk), s.EndDate.Sub(t0), ladder)
	return logitCase{s: s, st: st, fair: fair, model: m, name: name}
}

// gridded is a model quote in YES space on the tick grid as the planner
// puts it: bids rounded down, asks up.
type gridded struct {
	bid   bool
	n     int64 // YES-space ticks
	level int
}

func gridQuotes(t *testing.T, s *Snapshot, qs []Desired) []gridded {
	t.Helper()
	T := float64(d("1").Div(s.Tick).IntPart())
	var out []gridded
	for _, q := range qs {
		if !(q.Price > 0 && q.Price < 1) {
			t.Fatalf("quote %+v outside (0,1)", q)
		}
		y, bid := toYes(q.Outcome, q.Price)*T, bidLike(q.Outcome, q.Side)
		var n int64
		if bid {
			n = int64(math.Floor(y + 1e-9))
		} else {
			n = int64(math.Ceil(y - 1e-9))
		}
		out = append(out, gridded{bid: bid, n: n, level: q.Level})
	}
	return out
}

// TestLogitModelsQuoteProperties checks, over random markets, what every
// Avellaneda–Stoikov and GLFT quote set must satisfy once on the grid:
// every bid below every ask in YES space (so, expressed as BUY orders, a YES
// bid plus a NO bid is below 1), no side crossing the others' best opposite
// price on either token (the models are makers), and with no inventory the
// fair value between the level-0 bid and ask.
func TestLogitModelsQuoteProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 {
		c := genLogitCase(t, r)
		qs := c.model.Quote(nil, c.s, c.st)
		if len(qs) == 0 {
			t.Fatalf("case %d (%s): no quotes", i, c.name)
		}
		g := gridQuotes(t, c.s, qs)
		T := d("1").Div(c.s.Tick).IntPart()
		ybid, yask, _, _ := exOwnBest(c.s, Yes)
		nbid, nask, _, _ := exOwnBest(c.s, No)
		bestBid := max(ybid.Div(c.s.Tick).IntPart(), T-nask.Div(c.s.Tick).IntPart())
		bestAsk := min(yask.Div(c.s.Tick).IntPart(), T-nbid.Div(c.s.Tick).IntPart())
		var bid0, ask0 float64 = -1, -1
		for _, b := range g {
			if b.bid && b.n >= bestAsk || !b.bid && b.n <= bestBid {
				t.Fatalf("case %d (%s): quotes %+v: tick %d crosses the book (best bid %d, best ask %d ticks)", i, c.name, qs, b.n, bestBid, bestAsk)
			}
			for _, a := range g {
				// YES bid n·tick plus NO bid (T−m)·tick is below 1 iff n < m.
				if b.bid && !a.bid && b.n+(T-a.n) >= T {
					t.Fatalf("case %d (%s): quotes %+v: bid at %d ticks, ask at %d: YES bid + NO bid ≥ 1", i, c.name, qs, b.n, a.n)
				}
			}
		}
		for _, q := range qs {
			if q.Level != 0 {
				continue
			}
			if y := toYes(q.Outcome, q.Price); bidLike(q.Outcome, q.Side) {
				bid0 = y
			} else {
				ask0 = y
			}
		}
		if c.s.NetYes() == 0 && !(bid0 >= 0 && bid0 <= c.fair && ask0 >= c.fair) {
			t.Fatalf("case %d (%s): flat inventory, level 0 bid %v ask %v around fair %v", i, c.name, bid0, ask0, c.fair)
		}
	}
}

// TestLogitModelsStayMakers pins the cases the scoreboard found: quotes
// that crossed the visible book (and were then moved by the planner to just
// inside the opposite best, paying the book's spread as a maker).
func TestLogitModelsStayMakers(t *testing.T) {
	as := func(gamma, k float64, h time.Duration) Model {
		m, err := NewAvellaneda(AvellanedaParams{Gamma: gamma, K: k, Horizon: h, InventoryUnit: 10, Ladder: Ladder{Size: 10, Levels: 1, MinSpread: 0.01, MaxSpread: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	glft := func(gamma, k, a float64) Model {
		m, err := NewGLFT(GLFTParams{Gamma: gamma, K: k, A: a, InventoryUnit: 10, Ladder: Ladder{Size: 10, Levels: 1, MinSpread: 0.01, MaxSpread: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []struct {
		name     string
		model    Model
		s        *Snapshot
		net      float64 // YES shares (NO when negative)
		end      time.Duration
		fair, s2 float64
		// the YES-space level-0 quotes wanted, on the grid
		bid, ask string
	}{
		// Defaults, fair 0.215, the end date 311 h away: γσ²(T−t) was about
		// 8 logit units, the pair's price middle near 0.5, and the bid at
		// 0.45 was over the ask at 0.24. Now T−t is the 24 h horizon: the
		// spread is still wider than 0.1, so 0.1 around the fair value.
		{name: "A–S far end date, fair 0.215", model: as(0.1, 15, 24*time.Hour), s: book("0.01", "0.19", "0.24", "0.76", "0.81"),
			end: 311 * time.Hour, fair: 0.215, s2: 7e-5, bid: "0.16", ask: "0.27"},
		// Long 100 shares (q = 10) with the end date 47 days away: the
		// reservation price was at 0 and the ask a BUY NO at 0.995. Now the
		// ask (sell YES cheaply to shed the inventory) stops a tick above
		// the best bid, and the bid, at or below 0, is not quoted.
		{name: "A–S long, far end date", model: as(0.1, 15, 24*time.Hour), s: book("0.01", "0.43", "0.48", "0.52", "0.57"),
			net: 100, end: 1128 * time.Hour, fair: 0.455, s2: 7e-5, bid: "", ask: "0.44"},
		// Short: the bid stops a tick below the best ask, here 1 − the NO
		// bid.
		{name: "A–S short, the best ask is 1 − NO bid", model: as(0.1, 15, 24*time.Hour), s: book("0.001", "0.430", "0.480", "0.525", "0.560"),
			net: -100, fair: 0.455, s2: 7e-5, bid: "0.474", ask: ""},
		// GLFT, k = 0.5 (c1 = 1.82 logit): the pair's price middle was
		// 0.32, its bid 0.27 above the best ask 0.22.
		{name: "GLFT wide, fair 0.2", model: glft(0.1, 0.5, 1), s: book("0.01", "0.18", "0.22", "0.78", "0.82"),
			fair: 0.2, s2: 1e-5, bid: "0.15", ask: "0.25"},
		// GLFT, long 500 shares with a large c2: δa is negative and the ask
		// was below the best bid.
		{name: "GLFT long", model: glft(1, 1.5, 0.01), s: book("0.01", "0.48", "0.52", "0.48", "0.52"),
			net: 500, fair: 0.5, s2: 1e-4, bid: "", ask: "0.49"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			if tc.net > 0 {
				s.Position[Yes] = decimal.NewFromFloat(tc.net)
			} else if tc.net < 0 {
				s.Position[No] = decimal.NewFromFloat(-tc.net)
			}
			if tc.end > 0 {
				s.EndDate = t0.Add(tc.end)
			}
			qs := tc.model.Quote(nil, s, fixedState(t, tc.fair, tc.s2, 1, 15))
			var bid, ask string
			for _, g := range gridQuotes(t, s, qs) {
				p := decimal.New(g.n, 0).Mul(s.Tick).String()
				if g.bid {
					bid = p
				} else {
					ask = p
				}
			}
			if bid != tc.bid || ask != tc.ask {
				t.Errorf("YES-space quotes %s/%s, want %s/%s (%+v)", bid, ask, tc.bid, tc.ask, qs)
			}
			for _, q := range qs {
				if q.Side != exchange.Buy {
					t.Errorf("%+v: want BUY orders without AllowSell", q)
				}
			}
		})
	}
}

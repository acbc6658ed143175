package strategy

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// step is one event of a constructed tape, applied to a market's state in
// order: a cycle's snapshot observed, one of our fills found, or the
// markouts measured.
type step func(t *testing.T, st *MarketState)

// observeAt observes a snapshot at t0+at whose books have the mid ym (YES
// 0.01 either side, 100 shares a level), holding our open orders and the
// prints.
func observeAt(at time.Duration, ym float64, open []OpenOrder, prints ...TradePrint) step {
	return func(t *testing.T, st *MarketState) {
		s := book("0.01", fmtP(ym-0.01), fmtP(ym+0.01), "", "")
		s.Now, s.Open, s.Trades = t0.Add(at), open, prints
		st.Observe(s)
	}
}

// fillAt finds our fill at t0+at; rest is what the fill's book side holds
// at and through its price afterwards.
func fillAt(at time.Duration, o Outcome, sd exchange.Side, price, size float64, rest string) step {
	return func(t *testing.T, st *MarketState) {
		s := book("0.01", "", "", "", "")
		if rest != "0" {
			lvl := []exchange.PriceLevel{{Price: df(price), Size: d(rest)}}
			if sd == exchange.Buy {
				s.Tokens[o].Bids = lvl
			} else {
				s.Tokens[o].Asks = lvl
			}
		}
		st.Adverse.AddFill(OwnFill{Outcome: o, Side: sd, Price: price, Size: size, Time: t0.Add(at)}, s)
	}
}

// measureAt measures the markouts due at t0+at against the fair value fair.
func measureAt(at time.Duration, fair float64) step {
	return func(t *testing.T, st *MarketState) { st.Adverse.Markouts.Measure(t0.Add(at), fair, nil) }
}

func fmtP(p float64) string { return decimal.NewFromFloat(p).Round(4).String() }

func tprint(at time.Duration, o Outcome, sd exchange.Side, price string) TradePrint {
	return TradePrint{Outcome: o, Side: sd, Price: d(price), Size: d("5"), Time: t0.Add(at)}
}

// ours is our resting pair around 0.50: BUY YES at 0.48, BUY NO at 0.48
// (the YES ask at 0.52).
var ours = []OpenOrder{open("b", Yes, exchange.Buy, "0.48", "10"), open("a", No, exchange.Buy, "0.48", "10")}

// pair is the model under the rules: the same quotes as ours.
var pair = stub{{Outcome: Yes, Side: exchange.Buy, Price: 0.48, Size: 10}, {Outcome: No, Side: exchange.Buy, Price: 0.48, Size: 10}}

type adverseCase struct {
	name string
	tape []step
	at   time.Duration // when the quotes are asked for
	want []dq
	why  string // the action expected: "" (none), "through" or "jump"
}

func runAdverse(t *testing.T, p AdverseParams, cases []adverseCase) {
	t.Helper()
	m, err := WithAdverse(pair, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := NewMarketState(DefaultEstimatorParams())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.tape {
				s(t, st)
			}
			s := book("0.01", "0.49", "0.51", "", "")
			s.Now = t0.Add(c.at)
			if got := p.Action(&st.Adverse, s).Pulled; got != c.why {
				t.Errorf("pulled %q, want %q", got, c.why)
			}
			prefix := []Desired{{Outcome: Yes, Side: exchange.Buy, Price: 0.1, Size: 1}}
			got := m.Quote(prefix, s, st)
			if got[0] != prefix[0] {
				t.Fatal("the wrapper touched quotes before its own")
			}
			checkQuotes(t, got[1:], c.want)
		})
	}
}

var (
	bidAsk = []dq{{Yes, exchange.Buy, 0.48, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}
	askIn  = []dq{{No, exchange.Buy, 0.48, 10, 0}}
)

func TestAdverseAfterFill(t *testing.T) {
	p := AdverseParams{BackoffTicks: 2, BackoffFor: 10 * time.Second, PauseFraction: 1, PauseFor: 5 * time.Second}
	runAdverse(t, p, []adverseCase{
		// The fill emptied every bid at and above 0.48: the bid pauses.
		{"fill swept the level: its side pauses", []step{fillAt(0, Yes, exchange.Buy, 0.48, 10, "0")}, time.Second, askIn, ""},
		{"... until pause_for", []step{fillAt(0, Yes, exchange.Buy, 0.48, 10, "0")}, 5 * time.Second,
			[]dq{{Yes, exchange.Buy, 0.48 - 0.02*0.5, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}, ""}, // backoff half decayed
		// 10 of 40 shares: a quarter of 2 ticks, then half of that 5 s on.
		{"quarter of the depth: half a tick", []step{fillAt(0, Yes, exchange.Buy, 0.48, 10, "30")}, 0,
			[]dq{{Yes, exchange.Buy, 0.475, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}, ""},
		{"... decaying", []step{fillAt(0, Yes, exchange.Buy, 0.48, 10, "30")}, 5 * time.Second,
			[]dq{{Yes, exchange.Buy, 0.4775, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}, ""},
		{"near miss: the fill is backoff_for old", []step{fillAt(0, Yes, exchange.Buy, 0.48, 10, "30")}, 10 * time.Second, bidAsk, ""},
		// SELL NO at 0.52 is a YES bid at 0.48: the bid moves.
		{"a SELL NO fill is a bid", []step{fillAt(0, No, exchange.Sell, 0.52, 10, "30")}, 0,
			[]dq{{Yes, exchange.Buy, 0.475, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}, ""},
		// BUY NO at 0.48 is the ask: the NO price falls (the YES ask rises).
		{"an ask fill moves only the ask", []step{fillAt(0, No, exchange.Buy, 0.48, 10, "30")}, 0,
			[]dq{{Yes, exchange.Buy, 0.48, 10, 0}, {No, exchange.Buy, 0.475, 10, 0}}, ""},
		{"fills add up to backoff_ticks", []step{fillAt(0, Yes, exchange.Buy, 0.48, 10, "10"), fillAt(0, Yes, exchange.Buy, 0.48, 10, "10"),
			fillAt(0, Yes, exchange.Buy, 0.48, 10, "10")}, 0, []dq{{Yes, exchange.Buy, 0.46, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}, ""},
		{"near miss: no fill", nil, 0, bidAsk, ""},
	})
}

func TestAdverseTradeThrough(t *testing.T) {
	p := AdverseParams{ThroughCooling: 10 * time.Second}
	rest := observeAt(0, 0.5, ours)
	runAdverse(t, p, []adverseCase{
		{"a sale below our bid pulls", []step{rest, observeAt(time.Second, 0.5, ours, tprint(time.Second, Yes, exchange.Sell, "0.47"))}, time.Second, nil, "through"},
		{"a buy above our ask pulls", []step{rest, observeAt(time.Second, 0.5, ours, tprint(time.Second, Yes, exchange.Buy, "0.53"))}, time.Second, nil, "through"},
		// NO at 0.53 is YES at 0.47: below our bid.
		{"a NO print through the bid pulls", []step{rest, observeAt(time.Second, 0.5, ours, tprint(time.Second, No, exchange.Buy, "0.53"))}, time.Second, nil, "through"},
		{"... for the cooling period", []step{rest, observeAt(time.Second, 0.5, ours, tprint(time.Second, Yes, exchange.Sell, "0.47"))}, 10*time.Second + 999*time.Millisecond, nil, "through"},
		{"near miss: the cooling is over", []step{rest, observeAt(time.Second, 0.5, ours, tprint(time.Second, Yes, exchange.Sell, "0.47"))}, 11 * time.Second, bidAsk, ""},
		{"near miss: a print at our price", []step{rest, observeAt(time.Second, 0.5, ours, tprint(time.Second, Yes, exchange.Sell, "0.48"),
			tprint(time.Second, No, exchange.Sell, "0.52"), tprint(time.Second, Yes, exchange.Buy, "0.52"))}, time.Second, bidAsk, ""},
		{"near miss: inside our quotes", []step{rest, observeAt(time.Second, 0.5, ours, tprint(time.Second, Yes, exchange.Sell, "0.49"),
			tprint(time.Second, No, exchange.Buy, "0.51"))}, time.Second, bidAsk, ""},
		// The print was on the tape before we rested: not through us.
		{"near miss: a print already seen", []step{observeAt(0, 0.5, ours, tprint(0, Yes, exchange.Sell, "0.40")),
			observeAt(time.Second, 0.5, ours, tprint(0, Yes, exchange.Sell, "0.40"))}, time.Second, bidAsk, ""},
		{"near miss: nothing resting", []step{observeAt(0, 0.5, nil), observeAt(time.Second, 0.5, nil, tprint(time.Second, Yes, exchange.Sell, "0.40"))},
			time.Second, bidAsk, ""},
	})
}

func TestAdverseFairValueJump(t *testing.T) {
	p := AdverseParams{JumpCooling: 10 * time.Second, JumpK: 5, JumpMinTicks: 2}
	calm := observeAt(0, 0.5, nil)
	// A volatile market: 0.1 logit per √s, so 3 cents (0.12 logit) in
	// one second is 1.2 standard deviations.
	volatile := func(t *testing.T, st *MarketState) { st.Vol.v = 0.01 }
	runAdverse(t, p, []adverseCase{
		// The prior is 0.04/86400 per second: 3 cents in a second is ~180 sd.
		{"three cents on a calm market pulls", []step{calm, observeAt(time.Second, 0.53, nil)}, time.Second, nil, "jump"},
		{"a fall as well", []step{calm, observeAt(time.Second, 0.47, nil)}, 2 * time.Second, nil, "jump"},
		{"near miss: the cooling is over", []step{calm, observeAt(time.Second, 0.53, nil)}, 11 * time.Second, bidAsk, ""},
		{"near miss: one tick is below jump_min_ticks", []step{calm, observeAt(time.Second, 0.51, nil)}, time.Second, bidAsk, ""},
		{"near miss: within k sd of a volatile market", []step{volatile, calm, observeAt(time.Second, 0.53, nil)}, time.Second, bidAsk, ""},
		{"a bigger move on the volatile market pulls", []step{volatile, calm, observeAt(time.Second, 0.65, nil)}, time.Second, nil, "jump"},
		// A later, smaller jump does not shorten the cooling of a bigger one.
		{"the bigger jump's cooling holds", []step{calm, observeAt(time.Second, 0.6, nil), observeAt(5*time.Second, 0.6, nil)}, 10 * time.Second, nil, "jump"},
	})
}

func TestAdverseMarkouts(t *testing.T) {
	p := AdverseParams{MarkoutHorizon: 10 * time.Second, MarkoutFills: 4, MarkoutThreshold: 0.005, WidenTicks: 1, WidenMultiple: 1, WidenCapTicks: 5}
	buys := func(n int) []step {
		var s []step
		for range n {
			s = append(s, fillAt(0, Yes, exchange.Buy, 0.5, 10, "100"))
		}
		return s
	}
	tape := func(n int, at time.Duration, fair float64) []step { return append(buys(n), measureAt(at, fair)) }
	runAdverse(t, p, []adverseCase{
		// Bought at 0.50, worth 0.48 ten seconds on: −0.02 a share; each side
		// moves 1 tick + 0.02.
		{"losing 2 cents a share widens", tape(4, 10*time.Second, 0.48), 10 * time.Second,
			[]dq{{Yes, exchange.Buy, 0.45, 10, 0}, {No, exchange.Buy, 0.45, 10, 0}}, ""},
		{"at most widen_cap_ticks", tape(4, 10*time.Second, 0.40), 10 * time.Second,
			[]dq{{Yes, exchange.Buy, 0.43, 10, 0}, {No, exchange.Buy, 0.43, 10, 0}}, ""},
		{"near miss: within the threshold", tape(4, 10*time.Second, 0.496), 10 * time.Second, bidAsk, ""},
		{"near miss: gains", tape(4, 10*time.Second, 0.52), 10 * time.Second, bidAsk, ""},
		{"near miss: fewer fills than the window", tape(3, 10*time.Second, 0.48), 10 * time.Second, bidAsk, ""},
		{"near miss: not yet due", tape(4, 9*time.Second, 0.48), 10 * time.Second, bidAsk, ""},
	})
}

// prints returns n prints at t0+at of takers buying YES (dir +1) or
// selling it (−1), each in turn as a YES or a NO order (a buyer of NO
// sells YES).
func prints(at time.Duration, dir, n int) []TradePrint {
	var out []TradePrint
	for i := range n {
		o, sd := Yes, exchange.Buy
		if dir < 0 {
			sd = exchange.Sell
		}
		if i%2 == 1 { // the same direction, as a NO order
			o, sd = No, sd.Opposite()
		}
		out = append(out, tprint(at, o, sd, "0.50"))
	}
	return out
}

func TestAdverseFlow(t *testing.T) {
	p := AdverseParams{FlowWindow: time.Minute, FlowMinPrints: 5, FlowThreshold: 0.2, FlowTicks: 4}
	tape := func(steps ...[]TradePrint) []step {
		var all []TradePrint
		var out []step
		for i, s := range steps {
			all = append(all, s...)
			out = append(out, observeAt(time.Duration(i)*time.Second, 0.5, nil, slices.Clone(all)...))
		}
		return out
	}
	// 6 buyers and 1 seller: imbalance 5/7; (5/7 − 0.2)/0.8 × 4 ticks.
	lean := (5.0/7 - 0.2) / 0.8 * 0.04
	runAdverse(t, p, []adverseCase{
		{"buyers lead: the ask moves away", tape(prints(0, 1, 6), prints(time.Second, -1, 1)), 2 * time.Second,
			[]dq{{Yes, exchange.Buy, 0.48, 10, 0}, {No, exchange.Buy, 0.48 - lean, 10, 0}}, ""},
		{"sellers lead: the bid", tape(prints(0, -1, 6), prints(time.Second, 1, 1)), 2 * time.Second,
			[]dq{{Yes, exchange.Buy, 0.48 - lean, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}, ""},
		{"all one way: flow_ticks", tape(prints(0, 1, 5)), time.Second,
			[]dq{{Yes, exchange.Buy, 0.48, 10, 0}, {No, exchange.Buy, 0.44, 10, 0}}, ""},
		{"near miss: fewer prints than flow_min_prints", tape(prints(0, 1, 4)), time.Second, bidAsk, ""},
		{"near miss: balanced", tape(prints(0, 1, 3), prints(time.Second, -1, 3)), 2 * time.Second, bidAsk, ""},
		// 3 against 2: 0.2, not beyond the threshold.
		{"near miss: at the threshold", tape(prints(0, 1, 3), prints(time.Second, -1, 2)), 2 * time.Second, bidAsk, ""},
		// The buyers leave the window at t0+60s; the sellers' five remain.
		{"the window forgets", tape(prints(0, 1, 20), prints(time.Second, -1, 5)), time.Minute,
			[]dq{{Yes, exchange.Buy, 0.44, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}}, ""},
		{"... but not before", tape(prints(0, 1, 20), prints(time.Second, -1, 5)), time.Minute - time.Millisecond,
			[]dq{{Yes, exchange.Buy, 0.48, 10, 0}, {No, exchange.Buy, 0.48 - (15.0/25-0.2)/0.8*0.04, 10, 0}}, ""},
		// A print seen again (the tape of the next snapshot) counts once.
		{"a print counts once", append(tape(prints(0, 1, 3)), observeAt(time.Second, 0.5, nil, prints(0, 1, 3)...),
			observeAt(2*time.Second, 0.5, nil, append(prints(0, 1, 3), prints(2*time.Second, -1, 2)...)...)), 2 * time.Second, bidAsk, ""},
	})
}

// TestAdverseFlowRing: a window busier than the ring counts its newest
// adverseFlowRing prints.
func TestAdverseFlowRing(t *testing.T) {
	var a AdverseState
	s := &Snapshot{Now: t0.Add(time.Second)}
	s.Trades = append(prints(0, -1, adverseFlowRing), prints(time.Second, 1, 10)...)
	a.takePrints(s)
	im, n := a.FlowImbalance(s.Now, time.Minute)
	if want := float64(adverseFlowRing-20) / adverseFlowRing; n != adverseFlowRing || im != -want {
		t.Errorf("imbalance %v over %d prints, want %v over %d", im, n, -want, adverseFlowRing)
	}
	if im, n := a.FlowImbalance(s.Now, 500*time.Millisecond); n != 10 || im != 1 {
		t.Errorf("last half second: imbalance %v over %d prints, want 1 over 10", im, n)
	}
	if im, n := a.FlowImbalance(t0, time.Minute); n != adverseFlowRing-10 || im != -1 {
		t.Errorf("at t0: imbalance %v over %d prints, want -1 over %d (a print after now is not counted)", im, n, adverseFlowRing-10)
	}
}

func TestAdverseNilStateAndValidate(t *testing.T) {
	m, err := WithAdverse(pair, DefaultAdverseParams())
	if err != nil {
		t.Fatal(err)
	}
	checkQuotes(t, m.Quote(nil, book("0.01", "0.49", "0.51", "", ""), nil), bidAsk)
	for _, c := range []struct {
		field string
		p     func(p *AdverseParams)
	}{
		{"BackoffTicks", func(p *AdverseParams) { p.BackoffTicks = -1 }},
		{"BackoffFor", func(p *AdverseParams) { p.BackoffFor = 0 }},
		{"PauseFraction", func(p *AdverseParams) { p.PauseFraction = 1.5 }},
		{"ThroughCooling", func(p *AdverseParams) { p.ThroughCooling = 2 * time.Hour }},
		{"JumpK", func(p *AdverseParams) { p.JumpK = -2 }},
		{"MarkoutFills", func(p *AdverseParams) { p.MarkoutFills = 300 }},
		{"MarkoutHorizon", func(p *AdverseParams) { p.MarkoutHorizon = 5 * time.Second }},
		{"WidenCapTicks", func(p *AdverseParams) { p.WidenCapTicks = -1 }},
		{"FlowWindow", func(p *AdverseParams) { p.FlowWindow = -time.Second }},
		{"FlowMinPrints", func(p *AdverseParams) { p.FlowMinPrints = 257 }},
		{"FlowThreshold", func(p *AdverseParams) { p.FlowThreshold = 1 }},
		{"FlowThreshold", func(p *AdverseParams) { p.FlowThreshold = -0.1 }},
		{"FlowTicks", func(p *AdverseParams) { p.FlowTicks = -1 }},
	} {
		p := DefaultAdverseParams()
		c.p(&p)
		if _, err := WithAdverse(pair, p); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming it", c.field, err)
		}
	}
	if _, err := WithAdverse(pair, AdverseParams{}); err != nil {
		t.Errorf("every rule off: %v", err)
	}
}

// TestAdverseQuoteAllocatesNothing: the rules keep a steady-state pass free
// of allocations, with fills, prints, jumps and markouts in the state.
func TestAdverseQuoteAllocatesNothing(t *testing.T) {
	m, err := WithAdverse(pair, DefaultAdverseParams())
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewMarketState(DefaultEstimatorParams())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		fillAt(time.Duration(i)*time.Second, Yes, exchange.Buy, 0.48, 10, "30")(t, st)
	}
	measureAt(time.Minute, 0.45)(t, st)
	observeAt(0, 0.5, ours)(t, st)
	observeAt(time.Second, 0.55, ours)(t, st)
	s := book("0.01", "0.49", "0.51", "", "")
	s.Now = t0.Add(90 * time.Second)
	dst := make([]Desired, 0, 8)
	if n := testing.AllocsPerRun(100, func() { dst = m.Quote(dst[:0], s, st) }); n != 0 {
		t.Errorf("%v allocations per quote", n)
	}
	if len(dst) != 2 {
		t.Fatalf("quotes %+v: the rules should only widen here", dst)
	}
}

// TestAdverseActionSkipsOldFills checks the shortcut of Action's fill rules
// (no fill within their span: no fill looked at) against looking at every
// fill, on random fills and times.
func TestAdverseActionSkipsOldFills(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := DefaultAdverseParams()
	s := book("0.01", "0.49", "0.51", "0.49", "0.51")
	skipped := 0
	for trial := range 500 {
		var a AdverseState
		at := t0
		for range rng.IntN(40) {
			at = at.Add(time.Duration(rng.IntN(4000)) * time.Millisecond)
			a.AddFill(OwnFill{Outcome: Outcome(rng.IntN(2)), Side: []exchange.Side{exchange.Buy, exchange.Sell}[rng.IntN(2)],
				Price: 0.5, Size: float64(1 + rng.IntN(200)), Time: at}, s)
		}
		for range 20 {
			s.Now = at.Add(time.Duration(rng.IntN(12000)-1000) * time.Millisecond)
			got := p.Action(&a, s)
			all := a
			all.newestFill = s.Now // every fill is looked at
			if want := p.Action(&all, s); got != want {
				t.Fatalf("trial %d at %s: %+v, looking at every fill %+v", trial, s.Now.Sub(at), got, want)
			}
			if !a.fillsSince(s.Now, p.fillSpan()) {
				skipped++
			}
		}
	}
	if skipped == 0 {
		t.Error("the shortcut was never taken")
	}
}

// flowScan is FlowImbalance by counting the ring from its newest print back,
// the reference for the incremental window.
func flowScan(a *AdverseState, now time.Time, window time.Duration) (float64, int) {
	net, n := 0, 0
	for i := 1; i <= min(a.nFlow, adverseFlowRing); i++ {
		f := &a.flow[(a.nFlow-i)%adverseFlowRing]
		age := now.Sub(f.at)
		if age >= window {
			break
		}
		if age < 0 {
			continue
		}
		net += int(f.dir)
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return float64(net) / float64(n), n
}

// TestAdverseFlowIncremental: the window moved from call to call counts
// what a full count does, through bursts that overflow the ring, prints
// ahead of the asking time, quiet spells, a changed window and time asked
// backwards.
func TestAdverseFlowIncremental(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		var a AdverseState
		at := t0
		now := t0
		window := time.Duration(1+r.IntN(90)) * time.Second
		for step := range 3000 {
			switch k := r.IntN(20); {
			case k < 12: // a snapshot with a few new prints (a burst now and then)
				var s Snapshot
				n := r.IntN(4)
				if r.IntN(50) == 0 {
					n = 100 + r.IntN(300)
				}
				for range n {
					at = at.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
					sd := exchange.Buy
					if r.IntN(2) == 0 {
						sd = exchange.Sell
					}
					s.Trades = append(s.Trades, TradePrint{Outcome: Outcome(r.IntN(2)), Side: sd, Price: d("0.5"), Size: d("1"), Time: at})
				}
				s.Now = at
				a.takePrints(&s)
			case k < 18: // asked at a later time (now and then before the newest print)
				now = now.Add(time.Duration(r.IntN(20000)) * time.Millisecond)
			case k < 19:
				window = time.Duration(1+r.IntN(90)) * time.Second
			default:
				now = now.Add(-time.Duration(r.IntN(30)) * time.Second)
			}
			gi, gn := a.FlowImbalance(now, window)
			if wi, wn := flowScan(&a, now, window); gi != wi || gn != wn {
				t.Fatalf("seed %d step %d: imbalance %v over %d, a full count gives %v over %d", seed, step, gi, gn, wi, wn)
			}
		}
	}
}

package fillmodel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// mstep is one event of a hand-made sequence, with what the fill model must
// say after it.
type mstep struct {
	at   int    // milliseconds after t0
	op   string // book, trade, place, cancel, advance
	bids string // book: "price:size price:size", best first
	asks string
	// trade: "price size taker" (taker BUY, SELL or -); place: "id side price size"; cancel: "id"
	arg string
	// ahead after the step: "id=qty id=qty"; "id=-" means the order is gone
	ahead string
	// fills of the step, each "id size@price reason", separated by "; "
	fills string
}

func runSteps(t *testing.T, cfg MatcherConfig, steps []mstep) {
	t.Helper()
	m, err := NewMatcher("tok", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var book recording.FixedBook
	for i, s := range steps {
		now := fixture.Ms(s.at)
		var fills []Fill
		f := strings.Fields(s.arg)
		switch s.op {
		case "book":
			book.Bids = parseLevels(t, s.bids)
			book.Asks = parseLevels(t, s.asks)
			fills = m.OnBook(&book, now)
		case "trade":
			side := exchange.Side(f[2])
			if f[2] == "-" {
				side = ""
			}
			fills = m.OnTrade(MatchTrade{Price: fixture.Fx(t, f[0]), Size: fixture.Fx(t, f[1]), TakerSide: side}, now)
		case "place":
			vo := VirtualOrder{ID: f[0], Side: exchange.Side(f[1]), Price: fixture.Fx(t, f[2]), Size: fixture.Fx(t, f[3])}
			if len(f) > 4 { // the market's matching delay, in ms
				ms, err := strconv.Atoi(f[4])
				if err != nil {
					t.Fatalf("step %d: delay %q", i, f[4])
				}
				vo.Delay = time.Duration(ms) * time.Millisecond
			}
			if _, err := m.Place(vo, now); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		case "cancel":
			if _, err := m.Cancel(f[0], now); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		case "advance":
			fills = m.Advance(now)
		default:
			t.Fatalf("step %d: op %q", i, s.op)
		}
		if got := fmtFills(fills); got != s.fills {
			t.Errorf("step %d (%s %s%s%s at %dms): fills\n got %q\nwant %q", i, s.op, s.arg, s.bids, s.asks, s.at, got, s.fills)
		}
		for _, kv := range strings.Fields(s.ahead) {
			id, want, _ := strings.Cut(kv, "=")
			got, ok := m.QueueAhead(id)
			switch {
			case want == "-" && ok:
				t.Errorf("step %d: order %s still open (ahead %s)", i, id, got)
			case want != "-" && !ok:
				t.Errorf("step %d: order %s gone, want ahead %s", i, id, want)
			case want != "-" && got != fixture.Fx(t, want):
				t.Errorf("step %d: ahead of %s = %s, want %s", i, id, got, want)
			}
		}
	}
}

func parseLevels(t *testing.T, s string) []recording.Level {
	var out []recording.Level
	for _, p := range strings.Fields(s) {
		price, size, _ := strings.Cut(p, ":")
		out = append(out, recording.Level{Price: fixture.Fx(t, price), Size: fixture.Fx(t, size)})
	}
	return out
}

func fmtFills(fs []Fill) string {
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		s := fmt.Sprintf("%s %s@%s %s", f.OrderID, f.Size, f.Price, f.Reason)
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// The common opening of the mode tables: a bid level of 100 at 0.50, our
// order joins behind it.
var opening = []mstep{
	{at: 0, op: "book", bids: "0.50:100 0.49:50", asks: "0.52:80"},
	{at: 0, op: "place", arg: "b1 BUY 0.50 10"},
	{at: 1, op: "advance", ahead: "b1=100"},
}

func seq(parts ...[]mstep) []mstep {
	var out []mstep
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestMatcherQueueMode(t *testing.T) {
	runSteps(t, MatcherConfig{Mode: ModeQueue}, seq(opening, []mstep{
		// A sell of 30 at our price eats the front of the queue.
		{at: 2, op: "trade", arg: "0.50 30 SELL", ahead: "b1=70"},
		// The book agrees with the trade: nothing unexplained.
		{at: 3, op: "book", bids: "0.50:70 0.49:50", asks: "0.52:80", ahead: "b1=70"},
		// 50 joins behind us.
		{at: 4, op: "book", bids: "0.50:120 0.49:50", asks: "0.52:80", ahead: "b1=70"},
		// 30 cancelled: the front takes 70²/(70²+50²) = 66.2% of it.
		{at: 5, op: "book", bids: "0.50:90 0.49:50", asks: "0.52:80", ahead: "b1=50.135135"},
		// A sell of 60 exhausts the queue ahead; the rest fills us in part.
		{at: 6, op: "trade", arg: "0.50 60 SELL", ahead: "b1=0", fills: "b1 9.864865@0.5 queue"},
		// A buy at the ask does not touch our bid.
		{at: 7, op: "trade", arg: "0.52 5 BUY", ahead: "b1=0"},
		// A sell below our price: the market went through us.
		{at: 8, op: "trade", arg: "0.49 1 SELL", ahead: "b1=-", fills: "b1 0.135135@0.5 trade-through"},
	}))
}

func TestMatcherConservativeMode(t *testing.T) {
	runSteps(t, MatcherConfig{Mode: ModeConservative}, seq(opening, []mstep{
		{at: 2, op: "trade", arg: "0.50 30 SELL", ahead: "b1=70"},
		{at: 3, op: "book", bids: "0.50:70 0.49:50", asks: "0.52:80", ahead: "b1=70"},
		{at: 4, op: "book", bids: "0.50:120 0.49:50", asks: "0.52:80", ahead: "b1=70"},
		{at: 5, op: "book", bids: "0.50:90 0.49:50", asks: "0.52:80", ahead: "b1=50.135135"},
		// Trades at our price never fill in conservative mode.
		{at: 6, op: "trade", arg: "0.50 60 SELL", ahead: "b1=0"},
		{at: 7, op: "trade", arg: "0.50 60 SELL", ahead: "b1=0"},
		// A buyer lifting an ask at our bid price is not through us either.
		{at: 8, op: "trade", arg: "0.50 5 BUY", ahead: "b1=0"},
		// An ask at our price is a touch, not a cross.
		{at: 9, op: "book", bids: "0.49:50", asks: "0.50:10", ahead: "b1=0"},
		// An ask below our price crosses us: the whole order fills.
		{at: 10, op: "book", bids: "0.48:50", asks: "0.49:10", ahead: "b1=-", fills: "b1 10@0.5 cross"},
	}))
}

func TestMatcherOptimisticMode(t *testing.T) {
	runSteps(t, MatcherConfig{Mode: ModeOptimistic}, seq(opening, []mstep{
		// Any trade at our price fills the whole order, whatever the queue.
		{at: 2, op: "trade", arg: "0.50 1 SELL", ahead: "b1=-", fills: "b1 10@0.5 touch"},
		{at: 3, op: "place", arg: "s1 SELL 0.53 4"},
		// s1 became active before this book: the new 20 at 0.53 is behind it.
		{at: 4, op: "book", bids: "0.50:100", asks: "0.52:80 0.53:20", ahead: "s1=0"},
		// The bid touching our ask fills it.
		{at: 5, op: "book", bids: "0.53:1", asks: "0.54:80", ahead: "s1=-", fills: "s1 4@0.53 cross"},
	}))
}

func TestMatcherQueueCrossAndTouch(t *testing.T) {
	runSteps(t, MatcherConfig{}, []mstep{
		{at: 0, op: "book", bids: "0.50:100", asks: "0.52:80 0.53:20"},
		{at: 0, op: "place", arg: "s1 SELL 0.53 4"},
		{at: 0, op: "place", arg: "s2 SELL 0.55 4"},
		{at: 1, op: "advance", ahead: "s1=20 s2=0"},
		// A buyer lifting the 0.53 level: taker side BUY is our side's opposite.
		{at: 2, op: "trade", arg: "0.53 15 BUY", ahead: "s1=5 s2=0"},
		// A seller hitting a bid at our ask price means a bid was at our price.
		{at: 3, op: "trade", arg: "0.53 1 SELL", ahead: "s1=- s2=0", fills: "s1 4@0.53 cross"},
		// The best ask level vanishes; we are alone at 0.55 behind nothing.
		{at: 4, op: "book", bids: "0.50:100", asks: "0.56:30", ahead: "s2=0"},
		// An unknown-side trade at our price fills us from the front.
		{at: 5, op: "trade", arg: "0.55 3 -", ahead: "s2=0", fills: "s2 3@0.55 queue"},
		// The bid reaches our price: cross.
		{at: 6, op: "book", bids: "0.55:2", asks: "0.56:30", ahead: "s2=-", fills: "s2 1@0.55 cross"},
	})
}

func TestMatcherSharedLevel(t *testing.T) {
	runSteps(t, MatcherConfig{}, []mstep{
		{at: 0, op: "book", bids: "0.50:20", asks: "0.52:80"},
		{at: 0, op: "place", arg: "b1 BUY 0.50 10"},
		{at: 1, op: "place", arg: "b2 BUY 0.50 10"},
		{at: 2, op: "advance", ahead: "b1=20 b2=20"},
		// 35 sold: 20 real ahead, then b1's 10, then 5 of b2.
		{at: 3, op: "trade", arg: "0.50 35 SELL", ahead: "b1=- b2=0", fills: "b1 10@0.5 queue; b2 5@0.5 queue"},
	})
}

func TestMatcherLatency(t *testing.T) {
	cfg := MatcherConfig{Latency: Latency{Order: Constant(100 * time.Millisecond), Cancel: Constant(50 * time.Millisecond)}}
	runSteps(t, cfg, []mstep{
		{at: 0, op: "book", bids: "0.50:10", asks: "0.52:80"},
		{at: 0, op: "place", arg: "b1 BUY 0.50 10"},
		// In flight: a trade at our price does not concern us yet.
		{at: 50, op: "trade", arg: "0.50 10 SELL", ahead: "b1=0"},
		{at: 60, op: "book", bids: "0.50:5", asks: "0.52:80"},
		// Active at 100 behind the 5 then visible.
		{at: 150, op: "trade", arg: "0.50 6 SELL", ahead: "b1=0", fills: "b1 1@0.5 queue"},
		{at: 200, op: "cancel", arg: "b1", ahead: "b1=0"},
		// The cancel takes effect at 250: a fill at 220 still happens.
		{at: 220, op: "trade", arg: "0.50 2 SELL", ahead: "b1=0", fills: "b1 2@0.5 queue"},
		{at: 249, op: "advance", ahead: "b1=0"},
		{at: 250, op: "advance", ahead: "b1=-"},
		{at: 260, op: "trade", arg: "0.49 100 SELL"},
		// A cancel that lands before the placement: the order never rests.
		{at: 300, op: "place", arg: "b2 BUY 0.50 10"},
		{at: 301, op: "cancel", arg: "b2"},
		{at: 400, op: "trade", arg: "0.49 100 SELL", ahead: "b2=-"},
	})
}

func TestMatcherTakerOnActivation(t *testing.T) {
	runSteps(t, MatcherConfig{}, []mstep{
		{at: 0, op: "book", bids: "0.50:20", asks: "0.52:80 0.53:60 0.54:10"},
		{at: 0, op: "place", arg: "b1 BUY 0.53 100"},
		{at: 1, op: "advance", ahead: "b1=-", fills: "b1 80@0.52 taker; b1 20@0.53 taker"},
		{at: 2, op: "place", arg: "s1 SELL 0.49 30"},
		// The remainder rests at 0.49 after taking the 0.50 bids.
		{at: 3, op: "book", bids: "0.48:5", asks: "0.52:80", ahead: "s1=0", fills: "s1 20@0.5 taker"},
	})
}

func TestMatcherQueueModels(t *testing.T) {
	// Front 70, back 50, 30 cancelled.
	steps := func(want string) []mstep {
		return []mstep{
			{at: 0, op: "book", bids: "0.50:70", asks: "0.52:80"},
			{at: 0, op: "place", arg: "b1 BUY 0.50 10"},
			{at: 1, op: "book", bids: "0.50:120", asks: "0.52:80", ahead: "b1=70"},
			{at: 2, op: "book", bids: "0.50:90", asks: "0.52:80", ahead: "b1=" + want},
		}
	}
	cases := []struct {
		q    QueueModel
		want string
	}{
		{QueueModel{}, "50.135135"},                        // 70²/(70²+50²)·30 = 19.864865 off the front
		{QueueModel{N: 1}, "52.5"},                         // 70/120·30 = 17.5
		{QueueModel{N: 3}, "48.012821"},                    // 70³/(70³+50³)·30 = 21.987179
		{QueueModel{Func: QueueLog}, "54.394373"},          // ln71/(ln71+ln51)·30 = 15.605627
		{QueueModel{N: 0.000001}, "54.999997"},             // x^~0: about half
		{QueueModel{Func: QueuePower, N: 20}, "40.035813"}, // nearly all from the front
	}
	for _, c := range cases {
		t.Run(c.q.String(), func(t *testing.T) { runSteps(t, MatcherConfig{Queue: c.q}, steps(c.want)) })
	}
}

func TestQueueSampledIsSeededAndUnbiased(t *testing.T) {
	run := func(seed uint64) exchange.Fixed {
		m, err := NewMatcher("tok", MatcherConfig{Queue: QueueModel{Sample: true}, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		b := recording.FixedBook{Bids: []recording.Level{{Price: fixture.Fx(t, "0.5"), Size: fixture.Fx(t, "70")}}}
		m.OnBook(&b, fixture.Ms(0))
		if _, err := m.Place(VirtualOrder{ID: "b", Side: exchange.Buy, Price: fixture.Fx(t, "0.5"), Size: fixture.Fx(t, "1")}, fixture.Ms(0)); err != nil {
			t.Fatal(err)
		}
		b.Bids[0].Size = fixture.Fx(t, "120")
		m.OnBook(&b, fixture.Ms(1))
		b.Bids[0].Size = fixture.Fx(t, "90")
		m.OnBook(&b, fixture.Ms(2))
		a, _ := m.QueueAhead("b")
		return a
	}
	front := 0
	const n = 2000
	for seed := uint64(0); seed < n; seed++ {
		a := run(seed)
		if a2 := run(seed); a2 != a {
			t.Fatalf("seed %d: %s then %s", seed, a, a2)
		}
		switch a {
		case fixture.Fx(t, "40"): // all 30 from the front
			front++
		case fixture.Fx(t, "70"): // all from the back
		default:
			t.Fatalf("seed %d: ahead %s, want 40 or 70", seed, a)
		}
	}
	// The front is chosen with probability 0.662; 2000 draws put the
	// frequency within ±0.04 of it (more than 3.5 standard deviations).
	if p := float64(front) / n; p < 0.622 || p > 0.702 {
		t.Errorf("front chosen %.3f of the time, want about 0.662", p)
	}
}

func TestMatcherErrors(t *testing.T) {
	m, err := NewMatcher("tok", MatcherConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ok := VirtualOrder{ID: "a", Side: exchange.Buy, Price: 1, Size: 1}
	if _, err := m.Place(ok, fixture.Ms(0)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    VirtualOrder
		want error
	}{
		{ok, ErrDuplicateOrder},
		{VirtualOrder{Side: exchange.Buy, Price: 1, Size: 1}, ErrBadOrder},
		{VirtualOrder{ID: "x", Side: "buy", Price: 1, Size: 1}, ErrBadOrder},
		{VirtualOrder{ID: "x", Side: exchange.Sell, Price: 0, Size: 1}, ErrBadOrder},
		{VirtualOrder{ID: "x", Side: exchange.Sell, Price: 1, Size: -1}, ErrBadOrder},
	} {
		if _, err := m.Place(c.o, fixture.Ms(0)); !errors.Is(err, c.want) {
			t.Errorf("Place(%+v) = %v, want %v", c.o, err, c.want)
		}
	}
	if _, err := m.Cancel("nope", fixture.Ms(0)); !errors.Is(err, ErrUnknownOrder) {
		t.Errorf("Cancel(nope) = %v", err)
	}
	if _, err := NewMatcher("t", MatcherConfig{Mode: 9}); err == nil {
		t.Error("mode 9 accepted")
	}
	if _, err := NewMatcher("t", MatcherConfig{Latency: Latency{Order: Uniform(5, 1)}}); err == nil {
		t.Error("bad latency accepted")
	}
}

func TestMatcherState(t *testing.T) {
	m, err := NewMatcher("tok", MatcherConfig{Latency: Latency{Order: Constant(10 * time.Millisecond), Cancel: Constant(time.Second)}})
	if err != nil {
		t.Fatal(err)
	}
	at, err := m.Place(VirtualOrder{ID: "a", Side: exchange.Sell, Price: fixture.Fx(t, "0.6"), Size: fixture.Fx(t, "5")}, fixture.Ms(0))
	if err != nil || !at.Equal(fixture.Ms(10)) {
		t.Fatalf("Place = %v, %v", at, err)
	}
	if next, ok := m.NextTransition(); !ok || !next.Equal(fixture.Ms(10)) {
		t.Errorf("NextTransition = %v %v", next, ok)
	}
	st, _ := m.Order("a")
	if st.Active || st.Remaining != fixture.Fx(t, "5") {
		t.Errorf("pending state %+v", st)
	}
	m.Advance(fixture.Ms(10))
	if rs := m.Resting(nil); len(rs) != 1 || !rs[0].Active || rs[0].ID != "a" {
		t.Errorf("Resting = %+v", rs)
	}
	c1, _ := m.Cancel("a", fixture.Ms(20))
	c2, _ := m.Cancel("a", fixture.Ms(30))
	if !c1.Equal(fixture.Ms(1020)) || !c2.Equal(c1) {
		t.Errorf("cancel times %v %v", c1, c2)
	}
	// Time does not run backwards.
	m.Advance(fixture.Ms(5))
	if m.Open() != 1 {
		t.Errorf("Open = %d", m.Open())
	}
	m.Advance(fixture.Ms(1020))
	if m.Open() != 0 {
		t.Errorf("Open after cancel = %d", m.Open())
	}
}

func TestLatencyDist(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Dist
		ok   bool
	}{
		{"50ms", Constant(50 * time.Millisecond), true},
		{"0s", Constant(0), true},
		{"uniform:20ms-80ms", Uniform(20*time.Millisecond, 80*time.Millisecond), true},
		{"lognormal:40ms,0.5", LogNormal(40*time.Millisecond, 0.5), true},
		{"uniform:80ms-20ms", Dist{}, false},
		{"lognormal:0s,0.5", Dist{}, false},
		{"poisson:1s", Dist{}, false},
		{"-5ms", Dist{}, false},
	} {
		d, err := ParseDist(c.in)
		if (err == nil) != c.ok || c.ok && d != c.want {
			t.Errorf("ParseDist(%q) = %+v, %v", c.in, d, err)
			continue
		}
		if c.ok && d.String() != c.in {
			t.Errorf("String() = %q, want %q", d.String(), c.in)
		}
	}
	m, _ := NewMatcher("tok", MatcherConfig{})
	u := Uniform(20*time.Millisecond, 80*time.Millisecond)
	ln := LogNormal(40*time.Millisecond, 0.5)
	var below int
	for i := 0; i < 1000; i++ {
		if v := u.Sample(m.rng); v < 20*time.Millisecond || v > 80*time.Millisecond {
			t.Fatalf("uniform draw %v", v)
		}
		if v := ln.Sample(m.rng); v <= 0 {
			t.Fatalf("lognormal draw %v", v)
		} else if v < 40*time.Millisecond {
			below++
		}
	}
	if below < 430 || below > 570 {
		t.Errorf("%d of 1000 lognormal draws below the median", below)
	}
}

// TestMatcherFilledOrderWithPendingCancel: an order that fills while its
// cancel is in flight leaves a stale wake-up time; the next placement must
// still activate at its own time, not at the stale one (found by FuzzMatcher).
func TestMatcherFilledOrderWithPendingCancel(t *testing.T) {
	cfg := MatcherConfig{Latency: Latency{Order: Constant(10 * time.Millisecond), Cancel: Constant(50 * time.Millisecond)}}
	runSteps(t, cfg, []mstep{
		{at: 0, op: "book", bids: "0.48:10", asks: "0.52:10"},
		{at: 0, op: "place", arg: "b1 BUY 0.50 5"},
		{at: 10, op: "advance", ahead: "b1=0"},
		{at: 20, op: "cancel", arg: "b1"}, // takes effect at 70
		{at: 30, op: "trade", arg: "0.49 1 SELL", ahead: "b1=-", fills: "b1 5@0.5 trade-through"},
		{at: 75, op: "place", arg: "b2 BUY 0.55 3"}, // active at 85, crossing the 0.52 ask
		{at: 80, op: "trade", arg: "0.60 1 BUY", ahead: "b2=0"},
		{at: 85, op: "advance", ahead: "b2=-", fills: "b2 3@0.52 taker"},
	})
}

// In a market with a matching delay, an order placed at t reaches the book
// at t + latency + delay: trades and books before then do not touch it,
// and it joins the queue as the book stands when it arrives.
func TestMatcherMarketDelay(t *testing.T) {
	cfg := MatcherConfig{Latency: Latency{Order: Constant(100 * time.Millisecond), Cancel: Constant(50 * time.Millisecond)}}
	runSteps(t, cfg, []mstep{
		{at: 0, op: "book", bids: "0.50:10", asks: "0.52:80"},
		{at: 0, op: "place", arg: "b1 BUY 0.50 10 3000"},
		// After the latency, before the delay: a trade through our price
		// does not fill us.
		{at: 500, op: "trade", arg: "0.50 10 SELL"},
		{at: 1000, op: "book", bids: "0.50:4", asks: "0.52:80"},
		{at: 3099, op: "advance", ahead: "b1=0"}, // still in flight
		// Active at 3100, behind the 4 resting then.
		{at: 3100, op: "advance", ahead: "b1=4"},
		{at: 3200, op: "trade", arg: "0.50 6 SELL", ahead: "b1=0", fills: "b1 2@0.5 queue"},
		// A crossing order with a delay takes the book as it is on arrival:
		// the 0.52 asks are gone by then.
		{at: 4000, op: "place", arg: "b2 BUY 0.53 5 2000"},
		{at: 4100, op: "advance"},
		{at: 5000, op: "book", bids: "0.50:2", asks: "0.53:80"},
		{at: 6100, op: "advance", fills: "b2 5@0.53 taker"},
	})
}

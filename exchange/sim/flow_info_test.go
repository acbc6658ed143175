package sim

import (
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// flowExchange is a manual exchange with the flow cfg on n markets.
func flowExchange(t *testing.T, seed uint64, n int, cfg FlowConfig) *Exchange {
	t.Helper()
	ex, err := New(Config{Seed: seed, Markets: n, Manual: true, Start: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), NoRateLimits: true, Flow: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	return ex
}

// midMarket is an open market of ex on a 0.01 tick whose fair value lies
// in (0.2, 0.8), or nil; ex.mu is held.
func midMarket(ex *Exchange) *mstate {
	for _, x := range ex.markets {
		if !x.closed && x.m.TickSize.String() == "0.01" && x.fair() > 0.2 && x.fair() < 0.8 {
			return x
		}
	}
	return nil
}

// The public value lags the true value: without takers it closes the
// fraction 1 − exp(−t/Lead) of the gap, and with Lead negative there is
// no gap at all.
func TestFlowPublicLagsTrueValue(t *testing.T) {
	cfg := FlowConfig{Volatility: 1e-12, JumpRate: -1, TakerRate: -1, Drift: 2, Lead: time.Minute}
	ex := flowExchange(t, 3, 4, cfg)
	if err := ex.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	for _, s := range ex.markets {
		if s.closed {
			continue
		}
		m := ex.flow.mk[s]
		gap := m.diff - m.pdiff
		// drift 2/h for a minute is 1/30 of logit; with a 1 min time
		// constant the public value trails a ramp by about Lead × slope.
		if gap <= 0.01 || gap > 2.0/60 {
			t.Errorf("gap %v after a minute of drift, want about %v", gap, 2.0/60*(1-1/math.E))
		}
	}
	ex.mu.Unlock()
	cfg.Lead = -1
	ex = flowExchange(t, 3, 4, cfg)
	if err := ex.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	for _, s := range ex.markets {
		if m := ex.flow.mk[s]; !s.closed && math.Abs(m.diff-m.pdiff) > 1e-12 {
			t.Errorf("Lead -1: gap %v", m.diff-m.pdiff)
		}
	}
}

// A news jump is swept by informed takers before the background makers
// re-centre; the public value then takes the jump in with the time
// constant NewsLag (and from the informed trades), and the makers follow.
func TestFlowNewsSweepThenRecentre(t *testing.T) {
	cfg := FlowConfig{Volatility: 1e-12, JumpRate: -1, TakerRate: -1, Lead: -1, NewsLag: 20 * time.Second, NewsSweeps: 2, NewsSweepSize: 5000}
	ex := flowExchange(t, 5, 3, cfg)
	if err := ex.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	s := midMarket(ex)
	if s == nil {
		ex.mu.Unlock()
		t.Skip("no market with a 0.01 tick in the middle of the range")
	}
	m := ex.flow.mk[s]
	before := len(ex.data.trades)
	pub := m.pub
	m.jump += 1 // about +0.2 in price: every ask level is below the true value
	ex.flow.news(m, ex.clock())
	ex.mu.Unlock()
	if err := ex.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	swept := len(ex.data.trades) - before
	if moved := m.pub - pub; moved <= 0 || moved > 0.6 {
		t.Errorf("5 s after a jump of 1 the public value moved %v: want some of it, well under all", moved)
	}
	ex.mu.Unlock()
	if swept < 3 {
		t.Fatalf("%d trades after a jump of 1 logit: want a sweep of several levels", swept)
	}
	if err := ex.Advance(3 * cfg.NewsLag); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if gap := pub + 1 - m.pub; gap < 0 || gap > 0.05 {
		t.Fatalf("public value %v three news lags after the jump, want within 0.05 of %v", m.pub, pub+1)
	}
	if math.Abs(s.ladder-sigmoid(m.pub)) > 0.01 {
		t.Fatalf("the makers did not re-centre: ladder at %v, public value %v", s.ladder, sigmoid(m.pub))
	}
}

// Taker sizes are heavy-tailed: median about TakerSize, and a few orders
// of a thousand times that.
func TestFlowTakerSizesHeavyTailed(t *testing.T) {
	ex := flowExchange(t, 7, 2, FlowConfig{})
	ex.mu.Lock()
	defer ex.mu.Unlock()
	s := ex.markets[0]
	s.minSize = 0
	const n = 200_000
	var below, huge int
	for i := 0; i < n; i++ {
		sh := float64(ex.flow.takerSize(s)) / 1e6
		if sh < 10 {
			below++
		}
		if sh >= 10_000 {
			huge++
		}
	}
	if f := float64(below) / n; f < 0.48 || f > 0.52 {
		t.Errorf("%.3f of sizes below the median 10", f)
	}
	// P(X ≥ 1000 × median) = (1000 × 2^(1/1.3))^-1.3 = 1000^-1.3 / 2 ≈ 6.3e-5
	if huge < 3 || huge > 30 {
		t.Errorf("%d of %d sizes at least 10,000 shares, want about 13", huge, n)
	}
}

// In a market that pays rewards, background orders of the reward minimum
// size sit inside the reward band; in one that does not, none do.
func TestFlowRewardMakersCompete(t *testing.T) {
	ex := flowExchange(t, 11, 8, FlowConfig{TakerRate: -1})
	ex.mu.Lock()
	defer ex.mu.Unlock()
	paying, free := 0, 0
	for _, s := range ex.markets {
		if s.closed {
			continue
		}
		r := s.m.Rewards
		inside := 0
		want := max(s.minSize, roundLot(r.MinSize.InexactFloat64()))
		if want == max(s.minSize, roundLot(200)) {
			continue // the ladder's size: not told apart
		}
		ex.eng.OpenOrders(ex.flow.maker.id(), func(o *engine.Order) {
			if o.Market == s.id && r.MinSize.IsPositive() && o.Size == want {
				inside++
			}
		})
		if r.DailyRate.IsPositive() && r.MaxSpread.IsPositive() {
			paying++
			if inside < 2*3 {
				t.Errorf("paying market %s: %d reward-size background orders, want 6", s.m.ConditionID, inside)
			}
		} else if inside != 0 {
			free++
		}
	}
	if paying == 0 {
		t.Skip("no market of this catalog pays rewards")
	}
	if free != 0 {
		t.Errorf("%d markets without rewards have reward-size background orders", free)
	}
}

// With a Horizon the informed see the diffusion ahead of the true value:
// under a pure drift the true value trails what they see by about
// Drift × Horizon, and an informed trade moves the public value toward
// what they see (the order flow reveals it). Without a Horizon the two
// are the same value.
func TestFlowInformedSeeAhead(t *testing.T) {
	const drift = 3.0 // logit per hour
	cfg := FlowConfig{Volatility: 1e-12, JumpRate: -1, TakerRate: -1, Drift: drift, Lead: -1, Horizon: 2 * time.Minute}
	ex := flowExchange(t, 3, 4, cfg)
	for i := 0; i < 20*60; i++ { // 20 minutes: ten time constants
		if err := ex.Advance(time.Second); err != nil {
			t.Fatal(err)
		}
	}
	ex.mu.Lock()
	want := drift * cfg.Horizon.Hours()
	var s *mstate
	for _, x := range ex.markets {
		if x.closed {
			continue
		}
		m := ex.flow.mk[x]
		if gap := m.ahead - m.diff; math.Abs(gap-want) > 0.1*want {
			t.Errorf("the true value trails what the informed see by %.4f logit, want about %.4f", gap, want)
		}
		if math.Abs(m.diff-m.pdiff) > 1e-9 {
			t.Errorf("Lead -1: the public value %.4f differs from the true %.4f", m.pdiff, m.diff)
		}
		s = x
	}
	m := ex.flow.mk[s]
	before := m.ahead - m.pub
	m.learn(0.5)
	if after := m.ahead - m.pub; math.Abs(after-before/2) > 1e-9 {
		t.Errorf("after learning half the gap: %.5f left of %.5f", after, before)
	}
	ex.mu.Unlock()

	cfg.Horizon = 0
	ex = flowExchange(t, 3, 4, cfg)
	if err := ex.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	for _, x := range ex.markets {
		if m := ex.flow.mk[x]; !x.closed && m.ahead != m.diff {
			t.Errorf("no horizon: ahead %v, true %v", m.ahead, m.diff)
		}
	}
}

// An informed taker trades on what it sees ahead: with the true value and
// the book at the same price, it buys when the value ahead is above the
// ask, and does nothing when only the true value would be.
func TestFlowInformedTradeOnAhead(t *testing.T) {
	cfg := FlowConfig{Volatility: 1e-12, JumpRate: -1, TakerRate: -1, Lead: -1, Horizon: time.Hour}
	ex := flowExchange(t, 5, 3, cfg)
	if err := ex.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	s := midMarket(ex)
	if s == nil {
		t.Skip("no market with a 0.01 tick in the middle of the range")
	}
	m := ex.flow.mk[s]
	now := ex.clock()
	size := max(s.minSize, 20*engine.Unit)
	if m.ahead = m.diff; ex.flow.inform(s, m, size, now) {
		t.Fatal("traded with nothing seen ahead")
	}
	m.ahead = m.diff + 0.5 // the informed see the value 0.5 logit higher
	if !ex.flow.inform(s, m, size, now) {
		t.Fatal("did not trade on the value seen ahead")
	}
	b, _ := ex.eng.Balance(ex.flow.informed.id())
	if got := b.Shares[s.m.TokenIDs[0]] + b.PendingShares[s.m.TokenIDs[0]]; got <= 0 {
		t.Fatalf("the informed hold %d of outcome 0 (settled or pending), want a buy", got)
	}
}

// A leaked jump (NewsLeak): the informed trade on it before it is public,
// the true value takes it only at its time, then the sweep follows; a
// state saved in between keeps it.
func TestFlowNewsLeaks(t *testing.T) {
	cfg := FlowConfig{Volatility: 1e-12, JumpRate: -1, TakerRate: -1, Lead: -1, NewsLeak: time.Minute, NewsSweeps: 2}
	ex := flowExchange(t, 5, 3, cfg)
	if err := ex.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	s := midMarket(ex)
	if s == nil {
		ex.mu.Unlock()
		t.Skip("no market with a 0.01 tick in the middle of the range")
	}
	m := ex.flow.mk[s]
	now := ex.clock()
	size := max(s.minSize, 20*engine.Unit)
	if ex.flow.inform(s, m, size, now) {
		ex.mu.Unlock()
		t.Fatal("traded with nothing known")
	}
	jump := m.jump
	m.leaks = append(m.leaks, leak{at: now.Add(cfg.NewsLeak), size: 1})
	if !ex.flow.inform(s, m, size, now) {
		ex.mu.Unlock()
		t.Fatal("did not trade on the leaked jump")
	}
	ex.mu.Unlock()
	st, err := ex.State()
	if err != nil {
		t.Fatal(err)
	}
	var saved []LeakState
	for _, fs := range st.Flow.Markets {
		if fs.ConditionID == s.id {
			saved = fs.Leaks
		}
	}
	if len(saved) != 1 || saved[0].Size != 1 || !saved[0].At.Equal(now.Add(cfg.NewsLeak)) {
		t.Fatalf("the state file keeps the leaks %+v, want the one of size 1 due at +1m", saved)
	}
	if err := ex.Advance(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	if m.jump != jump || len(m.sweeps) != 0 {
		ex.mu.Unlock()
		t.Fatalf("half way through the leak: jump %v (was %v), %d sweeps: the news is public too early", m.jump, jump, len(m.sweeps))
	}
	ex.mu.Unlock()
	if err := ex.Advance(31 * time.Second); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if m.jump != jump+1 || len(m.leaks) != 0 {
		t.Fatalf("after the leak: jump %v, want %v; %d leaks left", m.jump, jump+1, len(m.leaks))
	}
}

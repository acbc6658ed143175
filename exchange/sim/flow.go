package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// flowFund is what each flow account starts with: 10^9 units of collateral.
const flowFund = 1_000_000_000 * engine.Unit

// flow is the simulated order flow (docs/simulator.md, "Order flow"): per
// market a true value and a public value that lags it, background makers
// that quote around the public value, informed takers that trade on the
// true value, and noise takers with heavy-tailed sizes. It runs under
// Exchange.mu.
type flow struct {
	e        *Exchange
	cfg      FlowConfig
	r        *rand.Rand
	src      *rand.PCG // r's source, saved in the state file
	maker    *account
	noise    *account
	informed *account
	n        uint64 // order counter for ids
	seed     uint64
	mk       map[*mstate]*flowMarket
}

// flowMarket is the flow's own state of one market. The true value's logit
// is mstate.logit = diff + jump: diff the diffusion, jump the sum of news
// jumps. ahead is the diffusion (random walk and drift) as the informed
// takers see it; diff follows it with the time constant Horizon (equal to
// it when Horizon is 0). The informed trade on ahead + jump. The public value's logit is pdiff +
// pjump: pdiff follows diff with the time constant Lead and moves toward
// it by InformedImpact of the gap after each informed trade (the makers
// learn from the order flow); pjump follows jump the same way with the
// time constant NewsLag.
type flowMarket struct {
	ahead        float64 // the diffusion as the informed takers see it (FlowConfig.Horizon ahead)
	diff, jump   float64
	pdiff, pjump float64
	pub          float64  // the public value's logit: pdiff + pjump
	leaks        []leak   // jumps the informed know of that are not public yet (FlowConfig.NewsLeak)
	sweeps       []sweep  // informed orders of a news burst still to send
	waiting      []waiter // informed takers waiting for the book to cross the true value
}

// waiter is an informed taker that arrived when the book held no edge: it
// trades as soon as one appears, until it gives up.
type waiter struct {
	size  int64
	until time.Time
}

// leak is a jump of size that becomes true and public at its time; until
// then only the informed know it.
type leak struct {
	at   time.Time
	size float64
}

// leaked is the sum of the jumps the informed know of ahead of time.
func (m *flowMarket) leaked() float64 {
	var x float64
	for _, l := range m.leaks {
		x += l.size
	}
	return x
}

// sweep is one order of a news burst: sent at its time, toward the true
// value as it is then.
type sweep struct{ at time.Time }

func newFlow(e *Exchange, cfg FlowConfig, seed uint64) (*flow, error) {
	src := rand.NewPCG(seed, 0x666c6f77)
	f := &flow{e: e, cfg: cfg, seed: seed, src: src, r: rand.New(src), mk: map[*mstate]*flowMarket{}}
	f.maker = e.flowAccount("sim-maker", flowWallet(seed, "maker"), flowFund)
	f.noise = e.flowAccount("sim-noise-taker", flowWallet(seed, "noise"), flowFund)
	f.informed = e.flowAccount("sim-informed-taker", flowWallet(seed, "informed"), flowFund)
	if !cfg.Disabled {
		now := e.clock()
		for _, s := range e.markets {
			if !s.closed {
				f.requote(s, f.market(s, now), now)
			}
		}
	}
	return f, nil
}

// market returns s's flow state, starting it at s's current fair value.
func (f *flow) market(s *mstate, now time.Time) *flowMarket {
	m, ok := f.mk[s]
	if !ok {
		m = &flowMarket{ahead: s.logit, diff: s.logit, pdiff: s.logit, pub: s.logit}
		f.mk[s] = m
	}
	return m
}

// restoreFlow rebuilds the flow of a restored exchange: its accounts are
// registered already, its ladders rest in the book, src continues the
// random draws where they stopped. restore then sets each market's true
// and public values (FlowMarketState).
func restoreFlow(e *Exchange, cfg FlowConfig, seed uint64, src *rand.PCG, orders uint64) (*flow, error) {
	f := &flow{e: e, cfg: cfg, seed: seed, src: src, r: rand.New(src), n: orders, mk: map[*mstate]*flowMarket{}}
	for _, a := range []struct {
		to   **account
		name string
	}{{&f.maker, "maker"}, {&f.noise, "noise"}, {&f.informed, "informed"}} {
		acct, ok := e.accts.byWallet[flowWallet(seed, a.name)]
		if !ok || !acct.flow {
			return nil, fmt.Errorf("the flow's %s account is missing", a.name)
		}
		*a.to = acct
	}
	return f, nil
}

// flowWallet derives a flow account's wallet address from the seed.
func flowWallet(seed uint64, name string) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h := sha256.Sum256(append(b[:], name...))
	return "0x" + hex.EncodeToString(h[:20])
}

// winner draws a resolution: outcome 0 wins with the true probability.
func (f *flow) winner(s *mstate) int {
	if f.r.Float64() < s.fair() {
		return 0
	}
	return 1
}

// logitCap bounds the true value's logit (a price of about 0.0025 to 0.9975).
const logitCap = 6

// step advances every open market by dt ending at now.
func (f *flow) step(dt time.Duration, now time.Time) {
	if f.cfg.Disabled {
		return
	}
	hours := dt.Hours()
	secs := dt.Seconds()
	for _, s := range f.e.markets {
		if s.closed {
			continue
		}
		m := f.market(s, now)
		m.ahead += f.cfg.Drift*hours + f.cfg.Volatility*math.Sqrt(hours)*f.r.NormFloat64()
		if f.r.Float64() < max(0, f.cfg.JumpRate)*hours {
			m.leaks = append(m.leaks, leak{at: now.Add(f.cfg.NewsLeak), size: f.cfg.JumpSize * f.r.NormFloat64()})
		}
		for len(m.leaks) > 0 && !m.leaks[0].at.After(now) {
			m.jump += m.leaks[0].size
			m.leaks = m.leaks[1:]
			f.news(m, now)
		}
		m.ahead = max(-logitCap-m.jump, min(logitCap-m.jump, m.ahead))
		m.diff += (m.ahead - m.diff) * closes(dt, f.cfg.Horizon)
		m.diff = max(-logitCap-m.jump, min(logitCap-m.jump, m.diff))
		s.logit = m.diff + m.jump
		m.catchUp(dt, f.cfg.Lead, f.cfg.NewsLag)
		for len(m.sweeps) > 0 && !m.sweeps[0].at.After(now) {
			m.sweeps = m.sweeps[1:]
			f.sweep(s, m, now)
		}
		if now.Sub(s.requote) >= f.cfg.MakerRequote || math.Abs(sigmoid(m.pub)-s.ladder) > f.cfg.MakerHalfSpread {
			f.requote(s, m, now)
		}
		f.retry(s, m, now)
		for k := poisson(f.r, max(0, f.cfg.TakerRate)*secs); k > 0; k-- {
			f.take(s, m, now)
		}
	}
}

// news schedules the informed burst of a jump: NewsSweeps orders spread
// evenly over NewsSweepWindow, the first at once.
func (f *flow) news(m *flowMarket, now time.Time) {
	n := f.cfg.NewsSweeps
	for k := 0; k < n; k++ {
		m.sweeps = append(m.sweeps, sweep{at: now.Add(f.cfg.NewsSweepWindow * time.Duration(k) / time.Duration(max(1, n)))})
	}
}

// catchUp moves the public value toward the true value over dt: the
// diffusion part by the fraction 1 − exp(−dt/lead) of its gap, the jump
// part by 1 − exp(−dt/newsLag) of its gap (at once for a zero time
// constant).
func (m *flowMarket) catchUp(dt, lead, newsLag time.Duration) {
	m.pdiff += (m.diff - m.pdiff) * closes(dt, lead)
	m.pjump += (m.jump - m.pjump) * closes(dt, newsLag)
	m.pub = m.pdiff + m.pjump
}

// closes is the fraction of a gap a partial adjustment with time constant
// tau closes in dt.
func closes(dt, tau time.Duration) float64 {
	if tau <= 0 {
		return 1
	}
	return 1 - math.Exp(-float64(dt)/float64(tau))
}

// learn moves the public value toward the value the informed trade on by
// the fraction impact of each part's gap: the makers' update after an
// informed trade (the order flow reveals what the informed know, Horizon
// ahead included).
func (m *flowMarket) learn(impact float64) {
	m.pdiff += impact * (m.ahead - m.pdiff)
	m.pjump += impact * (m.jump - m.pjump)
	m.pub = m.pdiff + m.pjump
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// place sends a flow order through the same path as HTTP orders (records,
// events), ignores rejections (an FAK with nothing to take) and reports
// whether it traded.
func (f *flow) place(a *account, s *mstate, outcome int, side engine.Side, price, size int64, tif engine.TIF, now time.Time) bool {
	f.n++
	req := engine.OrderRequest{
		ID: fmt.Sprintf("flow-%d", f.n), Account: a.id(), Token: s.m.TokenIDs[outcome],
		Side: side, Price: price, Size: size, TIF: tif,
	}
	res, _ := f.e.eng.Place(req, now)
	f.e.afterPlace(s, res, nil, now)
	return len(res.Fills) > 0
}

// poisson draws a Poisson variate with mean lambda (Knuth; lambda is small).
func poisson(r *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	if lambda > 30 { // normal approximation for large means
		return max(0, int(math.Round(lambda+math.Sqrt(lambda)*r.NormFloat64())))
	}
	l := math.Exp(-lambda)
	k, p := 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// roundLot converts shares to base units, rounded down to the 0.01 lot.
func roundLot(shares float64) int64 {
	return int64(shares*100) * engine.SizeLot
}

func floorTick(p float64, tick int64) int64 {
	return int64(math.Floor(p*float64(engine.Unit)/float64(tick))) * tick
}

func ceilTick(p float64, tick int64) int64 {
	return int64(math.Ceil(p*float64(engine.Unit)/float64(tick))) * tick
}

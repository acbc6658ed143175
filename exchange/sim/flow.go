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

// flow is the simulated order flow: a fair-value process per market, a
// background maker that keeps a ladder of BUY orders on both outcomes around
// the fair value, and noise and informed takers arriving as a Poisson
// process. It runs under Exchange.mu.
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
}

func newFlow(e *Exchange, cfg FlowConfig, seed uint64) (*flow, error) {
	src := rand.NewPCG(seed, 0x666c6f77)
	f := &flow{e: e, cfg: cfg, seed: seed, src: src, r: rand.New(src)}
	f.maker = e.flowAccount("sim-maker", flowWallet(seed, "maker"), flowFund)
	f.noise = e.flowAccount("sim-noise-taker", flowWallet(seed, "noise"), flowFund)
	f.informed = e.flowAccount("sim-informed-taker", flowWallet(seed, "informed"), flowFund)
	if !cfg.Disabled {
		now := e.clock()
		for _, s := range e.markets {
			if !s.closed {
				f.requote(s, now)
			}
		}
	}
	return f, nil
}

// restoreFlow rebuilds the flow of a restored exchange: its accounts are
// registered already, its ladders rest in the book, src continues the
// random draws where they stopped.
func restoreFlow(e *Exchange, cfg FlowConfig, seed uint64, src *rand.PCG, orders uint64) (*flow, error) {
	f := &flow{e: e, cfg: cfg, seed: seed, src: src, r: rand.New(src), n: orders}
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

// winner draws a resolution: outcome 0 wins with the fair probability.
func (f *flow) winner(s *mstate) int {
	if f.r.Float64() < s.fair() {
		return 0
	}
	return 1
}

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
		moved := f.cfg.Drift*hours + f.cfg.Volatility*math.Sqrt(hours)*f.r.NormFloat64()
		if f.r.Float64() < max(0, f.cfg.JumpRate)*hours {
			moved += f.cfg.JumpSize * f.r.NormFloat64()
		}
		s.logit = max(-6, min(6, s.logit+moved))
		if now.Sub(s.requote) >= f.cfg.MakerRequote || math.Abs(s.fair()-f.ladderMid(s)) > f.cfg.MakerHalfSpread {
			f.requote(s, now)
		}
		for k := poisson(f.r, max(0, f.cfg.TakerRate)*secs); k > 0; k-- {
			f.take(s, now)
		}
	}
}

// ladderMid is the fair value the current ladder was built around.
func (f *flow) ladderMid(s *mstate) float64 { return s.ladder }

// requote replaces the background maker's ladder in a market.
func (f *flow) requote(s *mstate, now time.Time) {
	id := s.id
	f.e.eng.CancelAll(f.maker.id(), id, now)
	fair := s.fair()
	s.requote, s.ladder = now, fair
	size := max(s.minSize, roundLot(f.cfg.MakerSize))
	for k := 0; k < f.cfg.MakerLevels; k++ {
		off := f.cfg.MakerHalfSpread + float64(k)*f.cfg.MakerSpacing
		bid := floorTick(fair-off, s.tick)
		ask := ceilTick(fair+off, s.tick)
		if bid >= s.tick {
			f.place(f.maker, s, 0, engine.Buy, bid, size, engine.GTC, now)
		}
		if ask <= engine.Unit-s.tick {
			f.place(f.maker, s, 1, engine.Buy, engine.Unit-ask, size, engine.GTC, now)
		}
	}
	f.e.touch(id)
}

// take sends one taker order: informed takers buy whichever outcome is
// cheap against the fair value (limit at the fair value), noise takers buy
// or sell a random outcome a little through the touch.
func (f *flow) take(s *mstate, now time.Time) {
	size := max(s.minSize, roundLot(f.cfg.TakerSize*f.r.ExpFloat64()))
	fair := s.fair()
	if f.r.Float64() < max(0, f.cfg.Informed) {
		_, ask0, _ := f.e.eng.BestBidAsk(s.m.TokenIDs[0])
		bid0, _, _ := f.e.eng.BestBidAsk(s.m.TokenIDs[0])
		switch p := floorTick(fair, s.tick); {
		case ask0 > 0 && float64(ask0)/float64(engine.Unit) < fair && p >= s.tick:
			f.place(f.informed, s, 0, engine.Buy, p, size, engine.FAK, now)
		case bid0 > 0 && float64(bid0)/float64(engine.Unit) > fair:
			if q := floorTick(1-fair, s.tick); q >= s.tick {
				f.place(f.informed, s, 1, engine.Buy, q, size, engine.FAK, now)
			}
		}
		return
	}
	outcome := f.r.IntN(2)
	tok := s.m.TokenIDs[outcome]
	bid, ask, _ := f.e.eng.BestBidAsk(tok)
	slip := 2 * s.tick
	if f.r.IntN(2) == 0 && f.e.eng.ShareBalance(f.noise.id(), tok) >= size && bid > 0 {
		f.place(f.noise, s, outcome, engine.Sell, max(s.tick, bid-slip), size, engine.FAK, now)
		return
	}
	if ask > 0 {
		f.place(f.noise, s, outcome, engine.Buy, min(engine.Unit-s.tick, ask+slip), size, engine.FAK, now)
	}
}

// place sends a flow order through the same path as HTTP orders (records,
// events) and ignores rejections (an FAK with nothing to take).
func (f *flow) place(a *account, s *mstate, outcome int, side engine.Side, price, size int64, tif engine.TIF, now time.Time) {
	f.n++
	req := engine.OrderRequest{
		ID: fmt.Sprintf("flow-%d", f.n), Account: a.id(), Token: s.m.TokenIDs[outcome],
		Side: side, Price: price, Size: size, TIF: tif,
	}
	res, _ := f.e.eng.Place(req, now)
	f.e.afterPlace(s, res, nil, now)
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

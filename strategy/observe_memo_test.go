package strategy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// TestFairMemoIsExact holds FairMemo to Snapshot.FairValue on a random
// market whose books keep their slices or get new ones (equal levels or
// moved), whose open orders change or come back equal in new decimals,
// whose tape grows, and whose books sometimes empty (the value then comes
// from the last trade). The memo must answer some of the calls.
func TestFairMemoIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	hits, calls := 0, 0
	for range 200 {
		s, fair := genBook(rng)
		s.Open = genOpen(rng, s, fair)
		var m FairMemo
		for step := range 60 {
			switch rng.IntN(8) {
			case 0: // a book side moves: new levels
				b, _ := genBook(rng)
				o := rng.IntN(2)
				s.Tokens[o] = b.Tokens[o]
			case 1: // the same levels in a new slice
				o := rng.IntN(2)
				s.Tokens[o].Bids = slices.Clone(s.Tokens[o].Bids)
			case 2: // our orders change
				s.Open = genOpen(rng, s, fair)
			case 3: // the same orders, their decimals new
				s.Open = slices.Clone(s.Open)
				for i := range s.Open {
					s.Open[i].Size = s.Open[i].Size.Add(decimal.Zero)
				}
			case 4: // a trade
				s.Trades = append(s.Trades, TradePrint{Outcome: Outcome(rng.IntN(2)), Price: decimal.New(int64(1+rng.IntN(99)), -2),
					Size: decimal.NewFromInt(1), Time: t0.Add(time.Duration(step) * time.Second)})
			case 5: // the books empty
				for o := range s.Tokens {
					s.Tokens[o].Bids, s.Tokens[o].Asks = nil, nil
				}
			}
			got, gotOK := m.FairValue(s)
			want, wantOK := s.FairValue()
			calls++
			if got != want && !(math.IsNaN(got) && math.IsNaN(want)) || gotOK != wantOK {
				t.Fatalf("step %d: memo %v %v, plain %v %v", step, got, gotOK, want, wantOK)
			}
			if m.ok && m.same(s) {
				hits++
			}
		}
	}
	if hits < calls/10 {
		t.Fatalf("the memo answered %d of %d calls", hits, calls)
	}
}

// forwardIntensity is IntensityEstimator.Update as it was, scanning every
// trade oldest first: the reference of the suffix scan.
func forwardIntensity(e *IntensityEstimator, fair float64, trades []TradePrint, now time.Time) {
	e.decayTo(now)
	x := Logit(fair)
	newest := e.lastTrade
	for i := range trades {
		t := &trades[i]
		if !t.Time.After(e.lastTrade) || t.Time.After(now) || !t.Outcome.Valid() {
			continue
		}
		newest = e.count(t, x, newest)
	}
	e.lastTrade = newest
}

// forwardPrints is AdverseState.takePrints as it was, oldest first.
func forwardPrints(a *AdverseState, s *Snapshot) {
	newest := a.lastPrint
	for i := range s.Trades {
		t := &s.Trades[i]
		if t.Time.After(a.lastPrint) {
			newest = a.takePrint(t, s.Now, newest)
		}
	}
	a.lastPrint = newest
}

// TestSuffixScansAreExact holds the estimators' scans from the newest
// trade back to the forward scans they replace, on a tape oldest first as
// the loop keeps it (a window of the last trades, ties in time, trades
// stamped after now, invalid outcomes and prices), cycle after cycle with
// and without new trades.
func TestSuffixScansAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 100 {
		a, _ := NewIntensityEstimator(DefaultEstimatorParams().Intensity)
		b, _ := NewIntensityEstimator(DefaultEstimatorParams().Intensity)
		b.counts = slices.Clone(a.counts)
		var pa, pb AdverseState
		var trades []TradePrint
		at := t0
		now := t0
		for range 300 {
			now = now.Add(time.Duration(1+rng.IntN(1500)) * time.Millisecond)
			for range rng.IntN(4) * rng.IntN(2) {
				if rng.IntN(3) > 0 {
					at = at.Add(time.Duration(rng.IntN(3)) * time.Second)
				}
				o := Outcome(rng.IntN(2))
				if rng.IntN(30) == 0 {
					o = 7
				}
				trades = append(trades, TradePrint{Outcome: o, Price: decimal.New(int64(rng.IntN(101)), -2), Size: decimal.NewFromInt(1), Time: at})
			}
			if n := len(trades); n > 64 {
				trades = append(trades[:0], trades[n-64:]...)
			}
			fair := 0.05 + 0.9*rng.Float64()
			a.Update(fair, trades, now)
			forwardIntensity(&b, fair, trades, now)
			if !slices.Equal(a.counts, b.counts) || a.exposure != b.exposure || !a.last.Equal(b.last) || !a.lastTrade.Equal(b.lastTrade) {
				t.Fatalf("intensity: suffix %v %v %v, forward %v %v %v", a.counts, a.exposure, a.lastTrade, b.counts, b.exposure, b.lastTrade)
			}
			s := &Snapshot{Trades: trades, Now: now}
			s.Open = []OpenOrder{{Outcome: Yes, Side: exchange.Buy, Price: decimal.New(int64(30+rng.IntN(20)), -2), Size: decimal.NewFromInt(5)},
				{Outcome: No, Side: exchange.Buy, Price: decimal.New(int64(30+rng.IntN(20)), -2), Size: decimal.NewFromInt(5)}}
			pa.restingFrom(s)
			pb.restingFrom(s)
			pa.takePrints(s)
			forwardPrints(&pb, s)
			if pa.Through != pb.Through || !pa.lastPrint.Equal(pb.lastPrint) {
				t.Fatalf("prints: suffix %v %v, forward %v %v", pa.Through, pa.lastPrint, pb.Through, pb.lastPrint)
			}
		}
	}
}

// forwardAddJump is AdverseState.addJump as it was, rewriting every kept
// jump in place.
func forwardAddJump(a *AdverseState, at time.Time, z, move float64) {
	cut := at.Add(-adverseJumpAge)
	j := a.jumps[:0]
	for _, e := range a.jumps {
		if (e.z <= z && e.move <= move) || e.at.Before(cut) {
			continue
		}
		j = append(j, e)
	}
	if n := len(j) - (adverseJumpKeep - 1); n > 0 {
		j = j[:copy(j, j[n:])]
	}
	a.jumps = append(j, adverseJump{at: at, z: z, move: move})
}

// TestAddJumpIsExact holds addJump, which leaves the jumps before the
// first that goes where they are, to the rewriting filter, on moves that
// are often none (an unchanged fair value), sometimes large, over more
// than the hour the jumps are kept.
func TestAddJumpIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for range 50 {
		var a, b AdverseState
		at := t0
		for range 3000 {
			at = at.Add(time.Duration(1+rng.IntN(5000)) * time.Millisecond)
			z, move := 0.0, 0.0
			if rng.IntN(4) == 0 {
				z, move = rng.ExpFloat64(), rng.Float64()/20
			}
			a.addJump(at, z, move)
			forwardAddJump(&b, at, z, move)
			if !slices.Equal(a.jumps, b.jumps) {
				t.Fatalf("jumps %v, the filter's %v", a.jumps, b.jumps)
			}
		}
	}
}

// TestRestingMemoIsExact holds restingFrom, which keeps its answer while
// the open orders are the same, to a fresh state's, on orders that stay,
// come back equal in new decimals, or change.
func TestRestingMemoIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	var a AdverseState
	s := &Snapshot{}
	for range 5000 {
		switch rng.IntN(3) {
		case 0:
			s.Open = nil
			for range rng.IntN(5) {
				sd := exchange.Buy
				if rng.IntN(2) == 0 {
					sd = exchange.Sell
				}
				s.Open = append(s.Open, OpenOrder{Outcome: Outcome(rng.IntN(3)), Side: sd, Price: decimal.New(int64(1+rng.IntN(98)), -2),
					Size: decimal.New(int64(rng.IntN(3)), 0)})
			}
		case 1:
			s.Open = slices.Clone(s.Open)
			for i := range s.Open {
				s.Open[i].Price = s.Open[i].Price.Add(decimal.Zero)
			}
		}
		a.restingFrom(s)
		var fresh AdverseState
		fresh.restingFrom(s)
		if a.hasRest != fresh.hasRest || (a.hasRest[0] && a.resting[0] != fresh.resting[0]) || (a.hasRest[1] && a.resting[1] != fresh.resting[1]) {
			t.Fatalf("resting %v %v, fresh %v %v", a.resting, a.hasRest, fresh.resting, fresh.hasRest)
		}
	}
}

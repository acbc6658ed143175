package exchange

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/clocktest"
)

// A restart chain runs processes one after the other on one fake clock,
// each with its own limiter, all sending greedily, and records every
// admission per bucket: what the exchange counts.

// chainProc is one process of a chain: how long it lives, whether it stops
// cleanly (Retire) or dies (its successor gets the last Spent it saved),
// and the pause before the next one starts.
type chainProc struct {
	life  time.Duration
	crash bool
	gap   time.Duration
}

// chainRun is what a chain sent.
type chainRun struct {
	adm [numBuckets][]admission
}

// worst returns the most units of bucket id in any window of its cap, and
// that as a fraction of the cap.
func (r *chainRun) worst(l Limits, id bucketID) (int, float64) {
	c := l.caps()[id]
	n := maxInWindow(r.adm[id], c.Window)
	return n, float64(n) / float64(c.Requests)
}

// ceilingOf is the most units a window of bucket id may hold under l: the
// window ceiling fill·C (or the burst of a cap too small for it), rounded
// down to whole units.
func ceilingOf(l Limits, id bucketID) int {
	c := l.caps()[id]
	b, _ := BucketShape(c, l.Fill)
	return int(math.Floor(windowCeiling(c, l.Fill, b) + 1e-9))
}

// runChain runs procs from t0 with demand (request costs, picked in turn or
// at random by next) and, when seed is set, starts each process from its
// predecessor's Spent: the final one after a clean stop, else the last one
// saved (at its start, then every saveEvery) before it died.
func runChain(t *testing.T, l Limits, procs []chainProc, seed bool, saveEvery time.Duration,
	next func(rng *rand.Rand) []cost, think func(rng *rand.Rand) time.Duration, rng *rand.Rand) *chainRun {
	t.Helper()
	clk := clocktest.New(t0)
	run := &chainRun{}
	ctx := context.Background()
	var handoff *Spent
	for pi, p := range procs {
		var sp *Spent
		if seed {
			sp = handoff
		}
		lm, err := newLimiter(l, clk.Now(), sp)
		if err != nil {
			t.Fatal(err)
		}
		lm.admitHook = func(now time.Time, costs []cost) {
			for _, c := range costs {
				run.adm[c.b] = append(run.adm[c.b], admission{now, c.n})
			}
		}
		saved := lm.spent(clk, false) // written before the first request
		nextSave := clk.Now().Add(saveEvery)
		end := clk.Now().Add(p.life)
		costs := next(rng)
		pause := think(rng)
		for clk.Now().Before(end) {
			now := clk.Now()
			if !now.Before(nextSave) {
				saved = lm.spent(clk, false)
				nextSave = now.Add(saveEvery)
			}
			wait := pause
			for _, c := range costs {
				wait = max(wait, lm.buckets[c.b].delay(now, c.n))
			}
			if wait > 0 {
				// move to the request's time, stopping at each save and
				// at the end of the process's life
				step := min(wait, nextSave.Sub(now), end.Sub(now))
				clk.Advance(step)
				pause -= step
				continue
			}
			if err := lm.wait(ctx, clk, "chain", costs); err != nil {
				t.Fatalf("process %d: %v", pi, err)
			}
			costs, pause = next(rng), think(rng)
		}
		if p.crash {
			handoff = &saved
		} else {
			final := lm.spent(clk, true)
			handoff = &final
		}
		clk.Advance(p.gap)
	}
	return run
}

// greedyOrders is a POST /orders batch of 15, again and again.
func greedyOrders(*rand.Rand) []cost { return endpointSpecs[epPlaceOrders].costs(15) }

// greedyMarkets is GET /markets (the order-book API's general cap only).
func greedyMarkets(*rand.Rand) []cost { return endpointSpecs[epMarkets].costs(1) }

func noThink(*rand.Rand) time.Duration { return 0 }

// restarts returns n processes of the given life, clean or not, back to
// back, and a last one that runs on for a window after the last restart.
func restarts(n int, life time.Duration, crash bool, last time.Duration) []chainProc {
	out := make([]chainProc, n)
	for i := range out {
		out[i] = chainProc{life: life, crash: crash}
	}
	return append(out, chainProc{life: last})
}

// TestRestartsKeepEveryWindow measures the two cases on the spec's
// caps, with processes that send as fast as their limiter lets them: four
// restarts 155 s apart (what StartLimitBurst=3 allows in 10 minutes, or a
// series of upgrades) against the POST /order caps, and a restart every
// 4 s against the 10 s POST /order cap (which binds only until the
// sustained one has spent its burst) and the order-book API's general cap. Each process starts either
// full (the code before WithSpent: the test shows that it breaks the caps)
// or from its predecessor's Spent, after a clean stop or a SIGKILL (the
// last Spent saved, once a second). Every window of every cap must hold
// at most fill × the cap, as a single process's windows do.
func TestRestartsKeepEveryWindow(t *testing.T) {
	l := DefaultLimits()
	cases := []struct {
		name   string
		procs  []chainProc
		demand func(*rand.Rand) []cost
		bucket bucketID
		binds  bool // bucket is the binding cap: its worst window must reach Fill (r·W/C when killed)
	}{
		{"4 restarts 155 s apart, orders", restarts(4, 155*time.Second, false, 11*time.Minute), greedyOrders, bPostOrderSustained, true},
		{"4 restarts 155 s apart, orders, killed", restarts(4, 155*time.Second, true, 11*time.Minute), greedyOrders, bPostOrderSustained, true},
		{"a restart every 4 s, orders", restarts(10, 4*time.Second, false, 20*time.Second), greedyOrders, bPostOrderBurst, false},
		{"a restart every 4 s, orders, killed", restarts(10, 4*time.Second, true, 20*time.Second), greedyOrders, bPostOrderBurst, false},
		{"a restart every 4 s, order-book reads", restarts(10, 4*time.Second, false, 20*time.Second), greedyMarkets, bCLOBGeneral, true},
		{"a restart every 4 s, order-book reads, killed", restarts(10, 4*time.Second, true, 20*time.Second), greedyMarkets, bCLOBGeneral, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := runChain(t, l, tc.procs, false, time.Second, tc.demand, noThink, nil)
			after := runChain(t, l, tc.procs, true, time.Second, tc.demand, noThink, nil)
			nb, fb := before.worst(l, tc.bucket)
			na, fa := after.worst(l, tc.bucket)
			t.Logf("%s, worst window: %d (%.3f of the cap) starting full, %d (%.3f) from the predecessor's Spent",
				tc.bucket, nb, fb, na, fa)
			if nb <= ceilingOf(l, tc.bucket) {
				t.Errorf("starting full stayed within fill × the cap (%.3f): the case proves nothing", fb)
			}
			for id := range numBuckets {
				if n, _ := after.worst(l, id); n > ceilingOf(l, id) {
					t.Errorf("%s: %d units in one window of %s, cap %d, ceiling %d", id, n, l.caps()[id].Window, l.caps()[id].Requests, ceilingOf(l, id))
				}
			}
			// A binding cap's worst window reaches the ceiling fill·C after
			// clean stops; after kills each process starts about empty, so
			// it reaches the refill r·W (docs/protocol.md, "After a crash").
			floor := l.Fill
			if tc.procs[0].crash {
				_, pw := BucketShape(l.caps()[tc.bucket], l.Fill)
				floor = pw / float64(l.caps()[tc.bucket].Requests)
			}
			if tc.binds && fa < floor-0.01 {
				t.Errorf("%s: worst window %.3f of the cap, want at least %.3f: the seeded buckets are too strict", tc.bucket, fa, floor)
			}
			// the other window of the order caps
			other := map[bucketID]bucketID{bPostOrderSustained: bPostOrderBurst, bPostOrderBurst: bPostOrderSustained}
			if id, ok := other[tc.bucket]; ok {
				nb, fb := before.worst(l, id)
				n, f := after.worst(l, id)
				t.Logf("%s, worst window: %d (%.3f of the cap) starting full, %d (%.3f) from the Spent", id, nb, fb, n, f)
			}
		})
	}
}

// TestRestartChainRandom runs random chains (random caps, fill, demand,
// lives from a fraction of a second to minutes, clean stops and kills,
// pauses between processes) and checks every window of every cap against
// its window ceiling (fill × the cap).
func TestRestartChainRandom(t *testing.T) {
	const w = 10 * time.Second
	fills := []float64{0.5, 0.8, 0.95, 1}
	runs := 40
	if testing.Short() {
		runs = 10
	}
	for i := range runs {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		l := DefaultLimits()
		l.Fill = fills[rng.IntN(len(fills))]
		l.CLOBGeneral = Cap{40 + rng.IntN(100), w}
		l.CLOBBooks = Cap{5 + rng.IntN(30), w}
		l.PostOrderBurst = Cap{30 + rng.IntN(60), w}
		l.PostOrderSustained = Cap{150 + rng.IntN(300), time.Minute + time.Duration(rng.IntN(120))*time.Second}
		l.DeleteOrderBurst = Cap{20 + rng.IntN(40), w}
		l.DeleteOrderSustained = Cap{100 + rng.IntN(200), 2 * time.Minute}
		var procs []chainProc
		for range 6 + rng.IntN(10) {
			life := time.Duration(rng.ExpFloat64() * float64(20*time.Second))
			procs = append(procs, chainProc{life: life, crash: rng.IntN(2) == 0, gap: time.Duration(rng.IntN(3000)) * time.Millisecond})
		}
		bb, _ := BucketShape(l.PostOrderBurst, l.Fill)
		bs, _ := BucketShape(l.PostOrderSustained, l.Fill)
		maxBatch := min(15, bb, bs)
		next := func(rng *rand.Rand) []cost {
			switch rng.IntN(4) {
			case 0:
				return endpointSpecs[epPlaceOrders].costs(1 + rng.IntN(maxBatch))
			case 1:
				return endpointSpecs[epCancelOrder].costs(1)
			case 2:
				return endpointSpecs[epBooks].costs(1)
			}
			return endpointSpecs[epMarkets].costs(1)
		}
		think := func(rng *rand.Rand) time.Duration {
			if rng.IntN(3) == 0 {
				return time.Duration(rng.ExpFloat64() * float64(50*time.Millisecond))
			}
			return 0
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			run := runChain(t, l, procs, true, time.Second, next, think, rng)
			for id := range numBuckets {
				if n, _ := run.worst(l, id); n > ceilingOf(l, id) {
					t.Errorf("%s: %d units in one window of %s, cap %d, ceiling %d (fill %v, %d processes)", id, n, l.caps()[id].Window,
						l.caps()[id].Requests, ceilingOf(l, id), l.Fill, len(procs))
				}
			}
		})
	}
}

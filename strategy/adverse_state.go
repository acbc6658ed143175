package strategy

import (
	"math"
	"slices"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// Sizes of AdverseState's bounded memories.
const (
	adverseFillRing = 32 // fills remembered for the back-off and pause rules
	adverseJumpKeep = 64 // jumps remembered for the fair-value jump rule
	// adverseJumpAge is how long a jump is remembered: the longest cooling
	// period the rules accept.
	adverseJumpAge = time.Hour
	// adverseFlowRing is how many prints the flow rule remembers: a
	// window that holds more counts only the newest this many.
	adverseFlowRing = 256
)

// Quote sides in YES space, indexing AdverseState's per-side facts.
const (
	sideBid = 0
	sideAsk = 1
)

// sideOf returns the YES-space side of an order on o with side sd.
func sideOf(o Outcome, sd exchange.Side) int {
	if bidLike(o, sd) {
		return sideBid
	}
	return sideAsk
}

// AdverseState is what one market's flow told us about adverse selection:
// facts with their times, not decisions. WithAdverse turns them into
// quotes pulled, paused or moved away, with its own thresholds; so SIGHUP
// can change every threshold without losing what was seen.
//
//   - Fills: our last fills, each with the fraction of the visible depth at
//     and through its price that it took (AddFill).
//   - Trades through our level: per YES-space side, when a print on the
//     tape went through our best resting price on that side.
//   - Fair-value jumps: each cycle's move of the logit fair value in
//     standard deviations of the volatility estimate over the time since
//     the last observation.
//   - Markouts at 1 s, 10 s and 60 s (MarkoutTracker).
//
// MarketState.Observe updates the trades and jumps; the loop adds the
// fills and measures the markouts once per cycle.
type AdverseState struct {
	fills      [adverseFillRing]adverseFill
	nFill      int
	newestFill time.Time // the latest time of a fill added (no fill remembered is newer)
	// Through is, per YES-space side (0 bid, 1 ask), the last time a print
	// went through our best price on that side; zero when none did.
	Through [2]time.Time
	// jumps are the fair value's moves that no later move outdid (addJump).
	jumps []adverseJump
	// LastZ is the last observed move of the fair value in standard
	// deviations (0 before two observations).
	LastZ float64

	// resting is our best bid and ask in YES space at the last observation
	// (has false: none), and lastPrint the time of the newest print seen.
	resting   [2]float64
	hasRest   [2]bool
	restOf    []OpenOrder // the open orders resting was found from (restOK)
	restOK    bool
	lastPrint time.Time

	// flow is the tape's last prints, each with the YES-space direction
	// of its taker (+1 a buyer of YES or seller of NO, −1 the other way),
	// oldest overwritten first (adverseFlowRing).
	flow    [adverseFlowRing]flowPrint
	nFlow   int
	flowWin flowWindow // FlowImbalance's last window

	Markouts MarkoutTracker
}

// flowWindow is the run of prints FlowImbalance counted last: the
// absolute indices [head, tail) of the prints less than window old at now
// and not after it, and the sum of their directions.
type flowWindow struct {
	ok         bool
	window     time.Duration
	now        time.Time
	head, tail int
	net        int
}

type flowPrint struct {
	at  time.Time
	dir int8 // +1: the taker bought YES (or sold NO); −1: sold YES (or bought NO)
}

type adverseFill struct {
	at   time.Time
	side int     // YES-space side
	frac float64 // of the visible depth at and through its price, in (0,1]
}

type adverseJump struct {
	at   time.Time
	z    float64 // standard deviations
	move float64 // price
}

// AddFill records one of our fills, found in the snapshot s (its books show
// the market after the fill), and queues it for markouts. The fraction of
// the visible depth it took is size / (size + what rests at and through its
// price on its book side now): 1 when the trade swept the level, small when
// the level still holds much more than the fill. Fills must come in time
// order.
func (a *AdverseState) AddFill(f OwnFill, s *Snapshot) {
	a.Markouts.Add(f)
	if !f.Outcome.Valid() || !(f.Size > 0) {
		return
	}
	frac := 1.0
	if rest := depthThrough(&s.Tokens[f.Outcome], f.Side, f.Price); rest > 0 {
		frac = f.Size / (f.Size + rest)
	}
	a.fills[a.nFill%adverseFillRing] = adverseFill{at: f.Time, side: sideOf(f.Outcome, f.Side), frac: frac}
	a.nFill++
	if f.Time.After(a.newestFill) {
		a.newestFill = f.Time
	}
}

// depthThrough sums what rests on tb's side of an order with side sd at
// price p or better (bids at or above p for a buy, asks at or below it for
// a sell).
func depthThrough(tb *TokenBook, sd exchange.Side, p float64) float64 {
	levels, buy := tb.Bids, true
	if sd == exchange.Sell {
		levels, buy = tb.Asks, false
	}
	const eps = 1e-9
	var sum float64
	for _, l := range levels {
		lp := l.Price.InexactFloat64()
		if (buy && lp < p-eps) || (!buy && lp > p+eps) {
			break // best first: the rest is further away
		}
		sum += l.Size.InexactFloat64()
	}
	return sum
}

// observe takes the snapshot's new prints and fair-value move. prevX and
// prevT are the logit fair value and time of the last volatility update
// (has false: none), variance its estimate before this move.
func (a *AdverseState) observe(s *Snapshot, f float64, hasF bool, prevX float64, prevT time.Time, has bool, variance float64) {
	a.takePrints(s)
	a.restingFrom(s)
	if !hasF || !has {
		return
	}
	dt := s.Now.Sub(prevT).Seconds()
	if dt <= 0 || !(variance > 0) {
		return
	}
	z := math.Abs(Logit(f)-prevX) / math.Sqrt(variance*dt)
	if math.IsNaN(z) || math.IsInf(z, 0) {
		return
	}
	a.LastZ = z
	a.addJump(s.Now, z, math.Abs(f-Sigmoid(prevX)))
}

// takePrints notes, among the prints newer than the last seen, any that
// went through our best resting price of the last observation: below our
// best bid or above our best ask, in YES space.
//
// The trades are oldest first (Snapshot.Trades), so the new ones are a
// suffix: the scan runs from the newest back to the first one seen before,
// and an unchanged tape costs one comparison. Each new print's effect does
// not depend on the order the prints are taken in (the newest time is a
// maximum, a side's time is the snapshot's).
func (a *AdverseState) takePrints(s *Snapshot) {
	k := len(s.Trades) // the first new print
	for k > 0 && s.Trades[k-1].Time.After(a.lastPrint) {
		k-- // oldest first: the ones before a seen print were seen too
	}
	newest := a.lastPrint
	for i := k; i < len(s.Trades); i++ {
		newest = a.takePrint(&s.Trades[i], s.Now, newest)
	}
	a.lastPrint = newest
}

// takePrint takes one new print at now and returns the newest print time
// with it.
func (a *AdverseState) takePrint(t *TradePrint, now, newest time.Time) time.Time {
	if !t.Outcome.Valid() {
		return newest
	}
	if t.Time.After(newest) {
		newest = t.Time
	}
	dir := int8(-1)
	if bidLike(t.Outcome, t.Side) {
		dir = 1
	}
	if old := a.nFlow - adverseFlowRing; old >= 0 {
		a.flowForget(old)
	}
	a.flow[a.nFlow%adverseFlowRing] = flowPrint{at: t.Time, dir: dir}
	a.nFlow++
	y := toYes(t.Outcome, t.Price.InexactFloat64())
	const eps = 1e-9
	if a.hasRest[sideBid] && y < a.resting[sideBid]-eps {
		a.Through[sideBid] = now
	}
	if a.hasRest[sideAsk] && y > a.resting[sideAsk]+eps {
		a.Through[sideAsk] = now
	}
	return newest
}

// restingFrom records our best bid and ask among the snapshot's open
// orders; the open orders of the last call, field for field (the same
// decimals: the same values), leave them as they are.
func (a *AdverseState) restingFrom(s *Snapshot) {
	if a.restOK && slices.Equal(a.restOf, s.Open) {
		return
	}
	a.restOf, a.restOK = append(a.restOf[:0], s.Open...), true
	a.hasRest = [2]bool{}
	for i := range s.Open {
		o := &s.Open[i]
		if !o.Outcome.Valid() || !o.Size.IsPositive() {
			continue
		}
		y := toYes(o.Outcome, o.Price.InexactFloat64())
		sd := sideOf(o.Outcome, o.Side)
		better := !a.hasRest[sd] || (sd == sideBid && y > a.resting[sd]) || (sd == sideAsk && y < a.resting[sd])
		if better {
			a.resting[sd], a.hasRest[sd] = y, true
		}
	}
}

// addJump keeps the jumps no later one outdoes: a newer move at least as
// big in both standard deviations and price replaces the ones before it.
// So the latest jump above any pair of thresholds is found by one scan;
// jumps older than an hour, and the oldest beyond adverseJumpKeep, go.
func (a *AdverseState) addJump(at time.Time, z, move float64) {
	cut := at.Add(-adverseJumpAge) // older than an hour: before cut
	gone := func(e *adverseJump) bool { return (e.z <= z && e.move <= move) || e.at.Before(cut) }
	k := 0 // the jumps before the first that goes stay where they are
	for k < len(a.jumps) && !gone(&a.jumps[k]) {
		k++
	}
	j := a.jumps[:k]
	for i := k; i < len(a.jumps); i++ {
		if e := &a.jumps[i]; !gone(e) {
			j = append(j, *e)
		}
	}
	if n := len(j) - (adverseJumpKeep - 1); n > 0 {
		j = j[:copy(j, j[n:])]
	}
	a.jumps = append(j, adverseJump{at: at, z: z, move: move})
}

// LastJump returns the time of the latest observed move of the fair value
// of more than k standard deviations and at least minMove in price, and
// false when none is remembered (within the last hour).
func (a *AdverseState) LastJump(k, minMove float64) (time.Time, bool) {
	for i := len(a.jumps) - 1; i >= 0; i-- {
		if e := a.jumps[i]; e.z > k && e.move >= minMove-1e-9 {
			return e.at, true
		}
	}
	return time.Time{}, false
}

// eachFill calls fn with each remembered fill, newest first, until fn
// returns false.
// fillsSince reports whether a fill may be within span before now: false
// only when no fill is, so that the rules need not look at each.
func (a *AdverseState) fillsSince(now time.Time, span time.Duration) bool {
	n := a.newestFill
	return a.nFill > 0 && (now.Before(n) || now.Sub(n) < span)
}

func (a *AdverseState) eachFill(fn func(f adverseFill) bool) {
	k := min(a.nFill, adverseFillRing)
	for i := 1; i <= k; i++ {
		if !fn(a.fills[(a.nFill-i)%adverseFillRing]) {
			return
		}
	}
}

// FlowImbalance returns the net direction of the takers of the prints in
// the window before now (less than window old, and not after now):
// (buyers − sellers) / prints, in YES space, in [−1, 1], and how many
// prints it counts (at most the newest adverseFlowRing). The prints are
// in time order (Snapshot.Trades is oldest first), so the window is a run
// of them; a call at the same or a later time with the same window moves
// the run's ends from the last call's instead of counting it again.
func (a *AdverseState) FlowImbalance(now time.Time, window time.Duration) (imbalance float64, n int) {
	w := &a.flowWin
	if !w.ok || w.window != window || now.Before(w.now) {
		a.flowRescan(now, window)
	} else {
		for w.tail < a.nFlow && !a.flow[w.tail%adverseFlowRing].at.After(now) {
			w.net += int(a.flow[w.tail%adverseFlowRing].dir)
			w.tail++
		}
		for w.head < w.tail && now.Sub(a.flow[w.head%adverseFlowRing].at) >= window {
			w.net -= int(a.flow[w.head%adverseFlowRing].dir)
			w.head++
		}
		w.now = now
	}
	if n = w.tail - w.head; n == 0 {
		return 0, 0
	}
	return float64(w.net) / float64(n), n
}

// flowRescan counts the window before now from the ring's newest print
// back.
func (a *AdverseState) flowRescan(now time.Time, window time.Duration) {
	lo := max(0, a.nFlow-adverseFlowRing) // the oldest print held
	tail := a.nFlow
	for tail > lo && a.flow[(tail-1)%adverseFlowRing].at.After(now) {
		tail-- // after now: not yet
	}
	head, net := tail, 0
	for head > lo && now.Sub(a.flow[(head-1)%adverseFlowRing].at) < window {
		head--
		net += int(a.flow[head%adverseFlowRing].dir)
	}
	a.flowWin = flowWindow{ok: true, window: window, now: now, head: head, tail: tail, net: net}
}

// flowForget keeps the counted window true when the print at index old
// (absolute) is about to be overwritten in the ring.
func (a *AdverseState) flowForget(old int) {
	w := &a.flowWin
	switch {
	case !w.ok || old < w.head:
	case old < w.tail: // counted: the window's oldest (the ones before went first)
		w.net -= int(a.flow[old%adverseFlowRing].dir)
		w.head = old + 1
	default: // not counted yet, and gone before it could be
		w.ok = false
	}
}

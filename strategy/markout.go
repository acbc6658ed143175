package strategy

import (
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// MarkoutHorizons are the horizons at which fills are marked out: 1 s, 10 s
// and 1 min after each fill, the backtest's three. A live loop measures a
// markout at its first cycle at or after the fill's time + horizon, so a
// horizon shorter than a cycle (1 s against the default 1 s cycle, measured
// from when the loop found the fill) is rounded up to the next cycle.
var MarkoutHorizons = [...]time.Duration{time.Second, 10 * time.Second, time.Minute}

// NumMarkoutHorizons is len(MarkoutHorizons).
const NumMarkoutHorizons = len(MarkoutHorizons)

// markoutRing is how many measured markouts a tracker keeps per horizon:
// the largest window a rule may average over.
const markoutRing = 256

// MarkoutHorizonIndex returns h's index in MarkoutHorizons, and false when h
// is not one of them.
func MarkoutHorizonIndex(h time.Duration) (int, bool) {
	for i, x := range MarkoutHorizons {
		if x == h {
			return i, true
		}
	}
	return 0, false
}

// OwnFill is one fill of one of our orders as the strategy sees it: the
// outcome token and our order's side, its price and the shares filled, and
// when the loop found it (at or after the trade). Mid is the market's YES
// fair value when the loop found it (0: unknown), the start of the
// mid-to-mid markout.
type OwnFill struct {
	Outcome Outcome
	Side    exchange.Side
	Price   float64
	Size    float64
	Time    time.Time
	Mid     float64
}

// Markout is one measured markout: the fill's Size × (value − Price) for a
// buy and Size × (Price − value) for a sell, where value is the fair value
// of the fill's token (1 − fair for NO) Horizon after the fill. It is
// positive when the price moved our way.
//
// MidValue is the mid-to-mid markout of the same fill: Size × (value −
// value at the fill), signed the same way, which leaves out the half
// spread the fill earned and measures the adverse selection alone; HasMid
// is false when the fill's Mid was unknown.
type Markout struct {
	Horizon  int // index into MarkoutHorizons
	Fill     OwnFill
	Value    float64 // collateral
	MidValue float64 // collateral
	HasMid   bool
	At       time.Time
}

// MarkoutTracker measures one market's fills against its fair value at each
// horizon and keeps the last markoutRing measured per horizon. The zero
// value is ready to use; it is deterministic and does no I/O.
type MarkoutTracker struct {
	pending [NumMarkoutHorizons][]OwnFill
	// done holds, per horizon, the last measured markouts' values and
	// shares, oldest overwritten first; n counts every one measured.
	done [NumMarkoutHorizons]struct {
		value, shares [markoutRing]float64
		at            [markoutRing]time.Time // the fill's time
		n             int
	}
}

// Add queues a fill for every horizon. Fills must come in time order.
func (t *MarkoutTracker) Add(f OwnFill) {
	for i := range t.pending {
		t.pending[i] = append(t.pending[i], f)
	}
}

// Measure marks out, against the fair value fair (of YES) observed at now,
// every pending fill whose time + horizon is at or before now, appends
// them to dst and returns it.
func (t *MarkoutTracker) Measure(now time.Time, fair float64, dst []Markout) []Markout {
	for h, d := range MarkoutHorizons {
		q, n := t.pending[h], 0
		for n < len(q) && !q[n].Time.Add(d).After(now) {
			f := q[n]
			v := markoutValue(f, fair)
			r := &t.done[h]
			r.value[r.n%markoutRing], r.shares[r.n%markoutRing], r.at[r.n%markoutRing] = v, f.Size, f.Time
			r.n++
			mo := Markout{Horizon: h, Fill: f, Value: v, At: now}
			if f.Mid > 0 && f.Mid < 1 {
				mo.MidValue, mo.HasMid = midMarkoutValue(f, fair), true
			}
			dst = append(dst, mo)
			n++
		}
		if n > 0 {
			m := copy(q, q[n:])
			clear(q[m:])
			t.pending[h] = q[:m]
		}
	}
	return dst
}

// Recent returns the share-weighted mean markout per share of the last
// window fills measured at horizon h (price units, positive when the price
// moved our way) and how many fills it averaged (fewer than window while
// fewer were measured). window is capped at 256.
func (t *MarkoutTracker) Recent(h, window int) (perShare float64, fills int) {
	if h < 0 || h >= NumMarkoutHorizons {
		return 0, 0
	}
	r := &t.done[h]
	k := min(window, r.n, markoutRing)
	var v, sh float64
	for i := 1; i <= k; i++ {
		j := (r.n - i) % markoutRing
		v += r.value[j]
		sh += r.shares[j]
	}
	if sh <= 0 {
		return 0, k
	}
	return v / sh, k
}

// Pending returns how many fills wait for their markout at horizon h.
func (t *MarkoutTracker) Pending(h int) int { return len(t.pending[h]) }

// midMarkoutValue is f's mid-to-mid markout: the move of its token's fair
// value from the fill to fair, times its size, signed by its side.
func midMarkoutValue(f OwnFill, fair float64) float64 {
	move := toYes(f.Outcome, fair) - toYes(f.Outcome, f.Mid)
	if f.Side == exchange.Sell {
		move = -move
	}
	return move * f.Size
}

// markoutValue is f's markout against the YES fair value fair.
func markoutValue(f OwnFill, fair float64) float64 {
	value := toYes(f.Outcome, fair)
	move := value - f.Price
	if f.Side == exchange.Sell {
		move = -move
	}
	return move * f.Size
}

// minFlowSpan is the shortest span RecentFlow divides by, so that a burst of
// fills just before now does not read as an unbounded rate.
const minFlowSpan = time.Minute

// RecentFlow returns the shares per second filled over the last window
// fills measured at horizon h: their shares over the time from the oldest
// of them to now (at least a minute), and how many fills it counted.
func (t *MarkoutTracker) RecentFlow(h, window int, now time.Time) (sharesPerSec float64, fills int) {
	if h < 0 || h >= NumMarkoutHorizons {
		return 0, 0
	}
	r := &t.done[h]
	k := min(window, r.n, markoutRing)
	if k == 0 {
		return 0, 0
	}
	var sh float64
	oldest := now
	for i := 1; i <= k; i++ {
		j := (r.n - i) % markoutRing
		sh += r.shares[j]
		if r.at[j].Before(oldest) {
			oldest = r.at[j]
		}
	}
	span := max(now.Sub(oldest), minFlowSpan)
	return sh / span.Seconds(), k
}

package strategy

import (
	"fmt"
	"math"
	"time"
)

// AdverseParams configure WithAdverse's four rules against adverse
// selection. A zero field turns its part off (see each).
type AdverseParams struct {
	// Rule 1, after a fill. The filled side (in YES space: a BUY YES or
	// SELL NO fill is the bid) moves away from the fair value by
	// BackoffTicks × the fraction of the visible depth the fill took
	// (AdverseState.AddFill), the move shrinking linearly to nothing over
	// BackoffFor; several recent fills add up, to at most BackoffTicks. A
	// fill that took at least PauseFraction of the depth pauses its side
	// (no quotes) for PauseFor instead.
	BackoffTicks  float64
	BackoffFor    time.Duration
	PauseFraction float64
	PauseFor      time.Duration

	// Rule 2, pulls. A print through our best resting price (below our bid
	// or above our ask, in YES space) pulls all the market's quotes (the
	// planner cancels its orders) for ThroughCooling; a move of the fair
	// value of more than JumpK standard deviations of the volatility
	// estimate over the time since the last observation, and of at least
	// JumpMinTicks ticks, pulls them for JumpCooling. A zero cooling or
	// JumpK turns its part off. JumpMinTicks keeps the one-tick steps of a
	// fair value read from a tick grid, which look like jumps to the
	// volatility estimate of a quiet market, from pulling the quotes.
	ThroughCooling time.Duration
	JumpCooling    time.Duration
	JumpK          float64
	JumpMinTicks   float64

	// Rule 3, markouts. When the share-weighted mean markout per share of
	// the market's last MarkoutFills fills at MarkoutHorizon (one of
	// MarkoutHorizons) is below −MarkoutThreshold, both sides move away
	// from the fair value by WidenTicks ticks plus WidenMultiple × the mean
	// loss per share, at most WidenCapTicks ticks. MarkoutFills 0 turns the
	// rule off; until that many fills are measured it does not fire.
	MarkoutHorizon   time.Duration
	MarkoutFills     int
	MarkoutThreshold float64
	WidenTicks       float64
	WidenMultiple    float64
	WidenCapTicks    float64

	// Rule 4, the flow. When the prints of the last FlowWindow (at least
	// FlowMinPrints of them) lean one way, the net direction of their
	// takers beyond FlowThreshold (AdverseState.FlowImbalance: (buyers −
	// sellers) / prints, in YES space) moves the side they take from away
	// from the fair value: the ask when buyers lead, the bid when sellers
	// do, by FlowTicks ticks at an imbalance of 1 and linearly less down
	// to nothing at FlowThreshold. Takers who know where the value goes
	// trade the same way (Glosten–Milgrom: a buy is news), so their side
	// of the book is the one the next informed taker will take. A zero
	// FlowWindow or FlowTicks turns the rule off.
	FlowWindow    time.Duration
	FlowMinPrints int
	FlowThreshold float64
	FlowTicks     float64
}

// DefaultAdverseParams returns the documented defaults (docs/strategies.md):
// conservative, so that they rarely act on a quiet market.
func DefaultAdverseParams() AdverseParams {
	return AdverseParams{
		BackoffTicks: 1, BackoffFor: 5 * time.Second, PauseFraction: 1, PauseFor: 5 * time.Second,
		ThroughCooling: 3 * time.Second, JumpCooling: 10 * time.Second, JumpK: 5, JumpMinTicks: 2,
		MarkoutHorizon: 10 * time.Second, MarkoutFills: 20, MarkoutThreshold: 0.005,
		WidenTicks: 1, WidenMultiple: 1, WidenCapTicks: 5,
		FlowWindow: time.Minute, FlowMinPrints: 5, FlowThreshold: 0.2, FlowTicks: 6,
	}
}

// Validate reports the first invalid field by name.
func (p AdverseParams) Validate() error {
	nonNeg := func(name string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("strategy: adverse: %s must be a finite number >= 0, got %v", name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"BackoffTicks", p.BackoffTicks}, {"JumpK", p.JumpK}, {"JumpMinTicks", p.JumpMinTicks}, {"MarkoutThreshold", p.MarkoutThreshold},
		{"WidenTicks", p.WidenTicks}, {"WidenMultiple", p.WidenMultiple}, {"WidenCapTicks", p.WidenCapTicks},
		{"FlowTicks", p.FlowTicks}} {
		if err := nonNeg(f.name, f.v); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"BackoffFor", p.BackoffFor}, {"PauseFor", p.PauseFor}, {"ThroughCooling", p.ThroughCooling}, {"JumpCooling", p.JumpCooling},
		{"FlowWindow", p.FlowWindow}} {
		if f.v < 0 || f.v > adverseJumpAge {
			return fmt.Errorf("strategy: adverse: %s must be in [0, %s], got %s", f.name, adverseJumpAge, f.v)
		}
	}
	switch {
	case p.BackoffTicks > 0 && p.BackoffFor == 0:
		return fmt.Errorf("strategy: adverse: BackoffFor must be > 0 when BackoffTicks is set")
	case p.PauseFor > 0 && !(p.PauseFraction > 0 && p.PauseFraction <= 1):
		return fmt.Errorf("strategy: adverse: PauseFraction must be in (0, 1] when PauseFor is set, got %v", p.PauseFraction)
	case !(p.FlowThreshold >= 0 && p.FlowThreshold < 1):
		return fmt.Errorf("strategy: adverse: FlowThreshold must be in [0, 1), got %v", p.FlowThreshold)
	case p.FlowMinPrints < 0 || p.FlowMinPrints > adverseFlowRing:
		return fmt.Errorf("strategy: adverse: FlowMinPrints must be in [0, %d], got %d", adverseFlowRing, p.FlowMinPrints)
	case p.MarkoutFills < 0 || p.MarkoutFills > markoutRing:
		return fmt.Errorf("strategy: adverse: MarkoutFills must be in [0, %d], got %d", markoutRing, p.MarkoutFills)
	}
	if _, ok := MarkoutHorizonIndex(p.MarkoutHorizon); !ok && p.MarkoutFills > 0 {
		return fmt.Errorf("strategy: adverse: MarkoutHorizon must be one of %v, got %s", MarkoutHorizons, p.MarkoutHorizon)
	}
	return nil
}

type adverse struct {
	inner Model
	p     AdverseParams
}

// WithAdverse wraps m with the adverse-selection rules of p, reading the
// market's AdverseState from the MarketState the loop passes (with a nil
// state, m's quotes pass unchanged). Compose it inside WithEndDate, so that
// the end-date taper and stop act on what it leaves, and outside
// WithRewards, so that a pull or a widening wins over the reward band.
// Prices move in ticks of the snapshot's tick size, so a tick-size change
// takes effect at once.
func WithAdverse(m Model, p AdverseParams) (Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &adverse{inner: m, p: p}, nil
}

// AdverseAction is what WithAdverse does to one market's quotes at one
// instant.
type AdverseAction struct {
	Pulled  string     // why every quote is pulled ("through", "jump"), or "" when not
	Paused  [2]bool    // per YES-space side (0 bid, 1 ask)
	Away    [2]float64 // per side, price units moved away from the fair value
	Widened float64    // the markout rule's share of Away, per side
	Flow    [2]float64 // the flow rule's share of Away, per side
}

// Action returns what the rules of p do at s.Now given the state a.
func (p AdverseParams) Action(a *AdverseState, s *Snapshot) AdverseAction {
	var act AdverseAction
	now, tick := s.Now, s.Tick.InexactFloat64()
	within := func(t time.Time, d time.Duration) bool {
		return !t.IsZero() && !now.Before(t) && now.Sub(t) < d
	}
	if p.ThroughCooling > 0 && (within(a.Through[sideBid], p.ThroughCooling) || within(a.Through[sideAsk], p.ThroughCooling)) {
		act.Pulled = "through"
		return act
	}
	if p.JumpCooling > 0 && p.JumpK > 0 {
		if t, ok := a.LastJump(p.JumpK, p.JumpMinTicks*tick); ok && within(t, p.JumpCooling) {
			act.Pulled = "jump"
			return act
		}
	}
	var backoff [2]float64 // fraction of BackoffTicks
	if a.fillsSince(now, p.fillSpan()) {
		a.eachFill(func(f adverseFill) bool {
			if p.PauseFor > 0 && f.frac >= p.PauseFraction && within(f.at, p.PauseFor) {
				act.Paused[f.side] = true
			}
			if p.BackoffTicks > 0 && within(f.at, p.BackoffFor) {
				backoff[f.side] += f.frac * (1 - float64(now.Sub(f.at))/float64(p.BackoffFor))
			}
			return true
		})
	}
	for sd := range backoff {
		act.Away[sd] = min(backoff[sd], 1) * p.BackoffTicks * tick
	}
	if p.FlowWindow > 0 && p.FlowTicks > 0 {
		if im, n := a.FlowImbalance(now, p.FlowWindow); n >= max(p.FlowMinPrints, 1) && math.Abs(im) > p.FlowThreshold {
			sd := sideAsk // buyers lead: the ask is what they take
			if im < 0 {
				sd = sideBid
			}
			act.Flow[sd] = (math.Abs(im) - p.FlowThreshold) / (1 - p.FlowThreshold) * p.FlowTicks * tick
			act.Away[sd] += act.Flow[sd]
		}
	}
	if p.MarkoutFills > 0 {
		if m, n := a.Markouts.Recent(p.horizonIndex(), p.MarkoutFills); n >= p.MarkoutFills && m < -p.MarkoutThreshold {
			act.Widened = min(p.WidenTicks*tick+p.WidenMultiple*(-m), p.WidenCapTicks*tick)
			act.Away[sideBid] += act.Widened
			act.Away[sideAsk] += act.Widened
		}
	}
	return act
}

// fillSpan is how long a fill counts for the pause and back-off rules.
func (p AdverseParams) fillSpan() time.Duration {
	var d time.Duration
	if p.PauseFor > 0 {
		d = p.PauseFor
	}
	if p.BackoffTicks > 0 {
		d = max(d, p.BackoffFor)
	}
	return d
}

func (p AdverseParams) horizonIndex() int {
	h, _ := MarkoutHorizonIndex(p.MarkoutHorizon)
	return h
}

// Quote implements Model.
func (w *adverse) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	n := len(dst)
	dst = w.inner.Quote(dst, s, st)
	if st == nil {
		return dst
	}
	act := w.p.Action(&st.Adverse, s)
	if act.Pulled != "" {
		return dst[:n]
	}
	out := n
	for i := n; i < len(dst); i++ {
		d := dst[i]
		sd := sideOf(d.Outcome, d.Side)
		if act.Paused[sd] {
			continue
		}
		if away := act.Away[sd]; away > 0 {
			y := toYes(d.Outcome, d.Price)
			if sd == sideBid {
				y -= away
			} else {
				y += away
			}
			if y <= 0 || y >= 1 {
				continue
			}
			d.Price = toYes(d.Outcome, y)
		}
		dst[out] = d
		out++
	}
	return dst[:out]
}

package strategy

import (
	"fmt"
	"math"
	"time"
)

// EndDateParams say how quoting winds down before a market's end date: sizes
// taper linearly from full at Taper before the end to MinFactor at
// ReduceOnly before it; from ReduceOnly on, only quotes that reduce the net
// position remain (capped at its size); from Stop on, none.
type EndDateParams struct {
	Taper      time.Duration
	ReduceOnly time.Duration
	Stop       time.Duration
	MinFactor  float64 // size factor at the end of the taper, in (0,1]
}

// Validate reports the first invalid field by name.
func (p EndDateParams) Validate() error {
	switch {
	case p.Stop < 0:
		return fmt.Errorf("strategy: end_date: Stop must not be negative, got %s", p.Stop)
	case p.ReduceOnly < p.Stop:
		return fmt.Errorf("strategy: end_date: ReduceOnly (%s) must not be shorter than Stop (%s)", p.ReduceOnly, p.Stop)
	case p.Taper < p.ReduceOnly:
		return fmt.Errorf("strategy: end_date: Taper (%s) must not be shorter than ReduceOnly (%s)", p.Taper, p.ReduceOnly)
	case !(p.MinFactor > 0 && p.MinFactor <= 1):
		return fmt.Errorf("strategy: end_date: MinFactor must be in (0,1], got %v", p.MinFactor)
	}
	return nil
}

// EndDatePhase is where a market stands relative to its end date.
type EndDatePhase int

// Phases, in the order they happen.
const (
	PhaseNormal EndDatePhase = iota
	PhaseTaper
	PhaseReduceOnly
	PhaseStopped
)

// Phase returns the phase and the size factor at tau before the end.
func (p EndDateParams) Phase(tau time.Duration) (EndDatePhase, float64) {
	switch {
	case tau <= p.Stop:
		return PhaseStopped, 0
	case tau <= p.ReduceOnly:
		return PhaseReduceOnly, 1
	case tau < p.Taper:
		frac := float64(tau-p.ReduceOnly) / float64(p.Taper-p.ReduceOnly)
		return PhaseTaper, p.MinFactor + (1-p.MinFactor)*frac
	}
	return PhaseNormal, 1
}

type endDate struct {
	inner Model
	p     EndDateParams
}

// WithEndDate wraps m with the end-date wind-down. Markets without an end
// date pass through unchanged.
func WithEndDate(m Model, p EndDateParams) (Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &endDate{inner: m, p: p}, nil
}

// Quote implements Model.
func (e *endDate) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	tau, ok := s.TimeToEnd()
	if !ok {
		return e.inner.Quote(dst, s, st)
	}
	phase, f := e.p.Phase(tau)
	if phase == PhaseStopped {
		return dst
	}
	n := len(dst)
	dst = e.inner.Quote(dst, s, st)
	switch phase {
	case PhaseTaper:
		for i := n; i < len(dst); i++ {
			dst[i].Size *= f
		}
	case PhaseReduceOnly:
		dst = reduceOnly(dst, n, s.NetYes())
	}
	return dst
}

// reduceOnly keeps, among dst[from:], the quotes that reduce the net YES
// position q (ask-like when long, bid-like when short), nearest levels
// first in the order given, trimming sizes so that their total is at most |q|.
func reduceOnly(dst []Desired, from int, q float64) []Desired {
	left := math.Abs(q)
	out := from
	for i := from; i < len(dst); i++ {
		d := dst[i]
		if q == 0 || bidLike(d.Outcome, d.Side) == (q > 0) || left <= 0 {
			continue
		}
		d.Size = min(d.Size, left)
		left -= d.Size
		dst[out] = d
		out++
	}
	return dst[:out]
}

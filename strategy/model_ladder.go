package strategy

import (
	"fmt"
	"math"
)

// Ladder is how the inventory-aware models lay out their quotes: Levels
// per side, Size shares each, level i sitting i·Spacing logit units outside
// level 0. MinSpread and MaxSpread bound level 0's total width in price
// units (0 disables a bound).
type Ladder struct {
	Size      float64
	Levels    int
	Spacing   float64
	MinSpread float64
	MaxSpread float64
	AllowSell bool // express a side as a SELL when the inventory covers it
}

// Validate reports the first invalid field by name.
func (l Ladder) Validate(model string) error {
	switch {
	case !(l.Size > 0) || math.IsInf(l.Size, 0):
		return fmt.Errorf("strategy: %s: Size must be positive, got %v", model, l.Size)
	case l.Levels < 1 || l.Levels > 20:
		return fmt.Errorf("strategy: %s: Levels must be in [1,20], got %d", model, l.Levels)
	case l.Levels > 1 && !(l.Spacing > 0):
		return fmt.Errorf("strategy: %s: Spacing must be positive with more than one level, got %v", model, l.Spacing)
	case !(l.MinSpread >= 0 && l.MinSpread < 1):
		return fmt.Errorf("strategy: %s: MinSpread must be in [0,1), got %v", model, l.MinSpread)
	case !(l.MaxSpread >= 0 && l.MaxSpread < 1):
		return fmt.Errorf("strategy: %s: MaxSpread must be in [0,1), got %v", model, l.MaxSpread)
	case l.MaxSpread > 0 && l.MaxSpread < l.MinSpread:
		return fmt.Errorf("strategy: %s: MaxSpread %v is below MinSpread %v", model, l.MaxSpread, l.MinSpread)
	}
	return nil
}

// emit appends the ladder for a level-0 bid and ask given in logit space
// around the reservation price centerX (see level0).
func (l Ladder) emit(dst []Desired, s *Snapshot, centerX, bidX, askX float64) []Desired {
	b, a, ok := l.level0(s, centerX, bidX, askX)
	if !ok {
		return dst
	}
	q := newQuoter(s, l.AllowSell)
	for i := range l.Levels {
		bi, ai := b, a
		if i > 0 {
			bi = Sigmoid(Logit(b) - float64(i)*l.Spacing)
			ai = Sigmoid(Logit(a) + float64(i)*l.Spacing)
		}
		if bi > 0 && bi < 1 {
			dst = q.bid(dst, bi, l.Size, i)
		}
		if ai > 0 && ai < 1 {
			dst = q.ask(dst, ai, l.Size, i)
		}
	}
	return dst
}

// inventory returns q, the net YES position in units of unit shares.
func inventory(s *Snapshot, unit float64) float64 { return s.NetYes() / unit }

func checkPos(model, field string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("strategy: %s: %s must be positive, got %v", model, field, v)
	}
	return nil
}

func checkPosOrZero(model, field string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("strategy: %s: %s must be positive, or 0 for the estimate, got %v", model, field, v)
	}
	return nil
}

package strategy

import (
	"fmt"
	"math"
)

// BandsParams configure the bands model: level i quotes a bid at fair −
// Offsets[i] and an ask at fair + Offsets[i] (YES space, price units), each
// of Sizes[i] shares. The planner puts them on whatever tick grid the market
// has (bids down, asks up).
type BandsParams struct {
	Offsets   []float64
	Sizes     []float64
	AllowSell bool // express a side as a SELL when the inventory covers it
}

// Validate reports the first invalid field by name.
func (p BandsParams) Validate() error {
	if len(p.Offsets) == 0 {
		return fmt.Errorf("strategy: bands: Offsets must have at least one level")
	}
	if len(p.Sizes) != len(p.Offsets) {
		return fmt.Errorf("strategy: bands: Sizes has %d levels, Offsets %d", len(p.Sizes), len(p.Offsets))
	}
	prev := 0.0
	for i, o := range p.Offsets {
		if !(o > prev) || o >= 0.5 {
			return fmt.Errorf("strategy: bands: Offsets[%d] = %v: offsets must increase, from above 0 to below 0.5", i, o)
		}
		prev = o
	}
	for i, s := range p.Sizes {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("strategy: bands: Sizes[%d] = %v must be positive", i, s)
		}
	}
	return nil
}

// Bands is the fixed-offset model.
type Bands struct{ p BandsParams }

// NewBands validates p and returns the model.
func NewBands(p BandsParams) (*Bands, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p.Offsets = append([]float64(nil), p.Offsets...)
	p.Sizes = append([]float64(nil), p.Sizes...)
	return &Bands{p: p}, nil
}

// Quote implements Model.
func (b *Bands) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	fv, ok := fairOf(s, st)
	if !ok {
		return dst
	}
	q := newQuoter(s, b.p.AllowSell)
	for i, off := range b.p.Offsets {
		if fv-off > 0 {
			dst = q.bid(dst, fv-off, b.p.Sizes[i], i)
		}
		if fv+off < 1 {
			dst = q.ask(dst, fv+off, b.p.Sizes[i], i)
		}
	}
	return dst
}

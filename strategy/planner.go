package strategy

import (
	"fmt"
	"math"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

// Tolerance says when an open order is close enough to a desired quote to
// stay (and keep its place in the queue): a price within PriceTicks ticks and
// a remaining size within SizeFrac of the desired size.
type Tolerance struct {
	PriceTicks int
	SizeFrac   float64
}

// Validate reports the first invalid field by name.
func (t Tolerance) Validate() error {
	if t.PriceTicks < 0 {
		return fmt.Errorf("strategy: tolerance: PriceTicks must not be negative, got %d", t.PriceTicks)
	}
	if !(t.SizeFrac >= 0 && t.SizeFrac <= 1) {
		return fmt.Errorf("strategy: tolerance: SizeFrac must be in [0,1], got %v", t.SizeFrac)
	}
	return nil
}

// Budget is how many placements and cancels the rate limiter can take now.
type Budget struct {
	Places  int
	Cancels int
}

// Unlimited is a budget that never binds.
func Unlimited() Budget { return Budget{Places: math.MaxInt, Cancels: math.MaxInt} }

// Order is one order to place: exact, on the tick grid, ready to sign.
type Order struct {
	Outcome Outcome
	TokenID string
	Side    exchange.Side
	Price   decimal.Decimal
	Size    decimal.Decimal
	Level   int     // the desired quote's level
	Value   float64 // the priority it was planned with (see Planner)
}

// Risk returns the order as package risk sees it.
func (o *Order) Risk() risk.Order {
	return risk.Order{Outcome: int(o.Outcome), Side: o.Side, Price: o.Price, Size: o.Size}
}

// Plan is the planner's answer: cancel Cancels first, then place Places.
// Kept lists the open orders that stay as they are. The slices belong to the
// Planner and are valid until its next call.
type Plan struct {
	Cancels []OpenOrder
	Places  []Order
	Kept    []OpenOrder
	// Dropped counts the places and cancels left out for lack of budget or
	// because an open order that could not be cancelled would cross them.
	Dropped int
}

// want is a desired quote on the grid.
type want struct {
	o     Outcome
	side  exchange.Side
	n, cs int64
	y     int64 // YES-space ticks
	level int
	value float64
	bid   bool // bid-like in YES space
}

// have is one of our open orders, measured against the grid.
type have struct {
	idx    int // into Snapshot.Open
	o      Outcome
	side   exchange.Side
	n, cs  int64
	onGrid bool
	y      float64 // YES-space ticks, for value and crossing
	value  float64
	bid    bool
	usable bool // valid outcome and side, on the grid and inside today's limits
}

// Planner turns desired quotes and open orders into cancels and places. It
// keeps scratch buffers between calls and is not safe for concurrent use;
// use one per goroutine.
//
// Value: when the budget is short, the planner keeps the changes of highest
// value. A change's value is 1/(1+d), d the distance in ticks between the
// fair value and the price that matters (the desired price for a place, the
// open order's price for a cancel, the larger of the two values for a
// replacement): quotes near the fair value earn the spread and the
// rewards, and stale orders near it are the ones that get picked off.
type Planner struct {
	wants   []want
	haves   []have
	order   []int
	adj     []int
	adjAt   []int
	cands   []cand
	matchW  []int
	matchH  []int
	seen    []bool
	changes []change
	cancels []OpenOrder
	places  []Order
	kept    []OpenOrder
	takenH  []bool
}

// Plan computes the plan for one market. desired come from a model; s
// supplies the grid (Tick, MinSize), the books and our open orders.
//
// Every place is on the tick grid (BUY rounded down, SELL up), at least the
// minimum size (sizes rounded down to 2 decimals; smaller quotes are
// dropped), within [tick, 1−tick], strictly inside the others' best
// opposite price on both books in YES space, and consistent with every
// other order that stays: no YES-space bid at or above a YES-space ask of
// ours (so a YES bid plus a NO bid is at most 1 − tick). Desired bids that
// would cross our own desired asks are moved down to one tick below them.
func (p *Planner) Plan(desired []Desired, s *Snapshot, tol Tolerance, b Budget) (Plan, error) {
	if err := tol.Validate(); err != nil {
		return Plan{}, err
	}
	g, err := newGrid(s.Tick, s.MinSize)
	if err != nil {
		return Plan{}, err
	}
	lim := g.bookLimits(s)
	fair, ok := s.FairValue()
	if !ok {
		fair = 0.5
	}
	fairT := fair * float64(g.t)
	p.prepareWants(desired, g, &lim, fairT)
	p.prepareHaves(s, g, &lim, fairT)
	p.match(tol)
	p.resolveConflicts()
	return p.build(s, g, b), nil
}

func value(y, fairT float64) float64 { return 1 / (1 + math.Abs(y-fairT)) }

// prepareWants puts the desired quotes on the grid.
func (p *Planner) prepareWants(desired []Desired, g grid, lim *limits, fairT float64) {
	p.wants = p.wants[:0]
	minAsk := g.t // lowest YES-space ask among the wants
	for i := range desired {
		d := &desired[i]
		if !d.Outcome.Valid() || !d.Side.Valid() || math.IsNaN(d.Price) || math.IsInf(d.Price, 0) ||
			!(d.Size > 0) || d.Size > maxSize {
			continue
		}
		cs := centiShares(d.Size)
		if cs < g.minCs {
			continue
		}
		si := sideIdx(d.Side)
		lo, hi := lim.lo[d.Outcome][si], lim.hi[d.Outcome][si]
		var n int64
		if pr := min(max(d.Price, 0), 1); d.Side == exchange.Buy {
			n = min(g.ticksFloor(pr), hi)
		} else {
			n = max(g.ticksCeil(pr), lo)
		}
		if n < lo || n > hi {
			continue
		}
		w := want{o: d.Outcome, side: d.Side, n: n, cs: cs, y: g.yes(d.Outcome, n), level: d.Level, bid: bidLike(d.Outcome, d.Side)}
		if !w.bid {
			minAsk = min(minAsk, w.y)
		}
		p.wants = append(p.wants, w)
	}
	// Our own bids must sit below our own asks: move crossing bids down.
	out := p.wants[:0]
	for _, w := range p.wants {
		if w.bid && w.y >= minAsk {
			w.y = minAsk - 1
			w.n = g.yes(w.o, w.y) // the map is its own inverse
			if !lim.ok(w.o, w.side, w.n) {
				continue
			}
		}
		w.value = value(float64(w.y), fairT)
		out = append(out, w)
	}
	p.wants = out
}

// prepareHaves measures our open orders.
func (p *Planner) prepareHaves(s *Snapshot, g grid, lim *limits, fairT float64) {
	p.haves = p.haves[:0]
	T := float64(g.t)
	for i := range s.Open {
		o := &s.Open[i]
		h := have{idx: i, o: o.Outcome, side: o.Side}
		pf := o.Price.InexactFloat64()
		if pf > 0 && pf < 1 {
			nf := pf * T
			h.n = int64(math.Round(nf))
			h.onGrid = math.Abs(nf-float64(h.n)) < 1e-6
		}
		h.cs = centiShares(min(o.Size.InexactFloat64(), maxSize))
		valid := o.Outcome.Valid() && o.Side.Valid()
		if valid {
			h.y = toYes(o.Outcome, pf) * T
			h.bid = bidLike(o.Outcome, o.Side)
			h.usable = h.onGrid && lim.ok(o.Outcome, o.Side, h.n)
		} else {
			h.y = fairT // unknown orders are cancelled first
		}
		h.value = value(h.y, fairT)
		p.haves = append(p.haves, h)
	}
}

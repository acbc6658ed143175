package strategy

import (
	"errors"

	"github.com/mmbot/mmbot/risk"
)

// Quoter runs model → planner → risk for one market at a time, reusing its
// buffers. It is not safe for concurrent use; the slices of a PassResult are
// valid until the next Pass.
type Quoter struct {
	Model     Model
	Tolerance Tolerance
	Checker   *risk.Checker // nil skips the pre-trade checks

	planner  Planner
	desired  []Desired
	open     []risk.Order
	accepted []Order
	rejected []Rejected
}

// Rejected is a planned order that the risk checks refused.
type Rejected struct {
	Order Order
	Err   *risk.Rejection
}

// PassResult is one market's pass: cancel Cancels, then place Places.
type PassResult struct {
	Fair     float64
	HasFair  bool
	Desired  []Desired   // the model's quotes, before the planner
	Cancels  []OpenOrder // to cancel first
	Places   []Order     // planned and accepted by the risk checks
	Kept     []OpenOrder // open orders left in place
	Rejected []Rejected  // planned but refused by the risk checks
	Dropped  int         // changes left out for lack of budget
}

// Pass quotes one market. Call st.Observe(s) first when st is used. others
// sums the exposure of every other market (risk.MarketTotals).
func (q *Quoter) Pass(s *Snapshot, st *MarketState, b Budget, others risk.Totals) (PassResult, error) {
	var r PassResult
	r.Fair, r.HasFair = fairOf(s, st)
	q.desired = q.Model.Quote(q.desired[:0], s, st)
	r.Desired = q.desired
	plan, err := q.planner.Plan(q.desired, s, q.Tolerance, b)
	if err != nil {
		return r, err
	}
	r.Cancels, r.Kept, r.Dropped = plan.Cancels, plan.Kept, plan.Dropped
	if q.Checker == nil {
		r.Places = plan.Places
		return r, nil
	}
	e := risk.Exposure{Fair: r.Fair, Position: s.Position, LastFill: s.LastFill, Now: s.Now, Others: others}
	if !r.HasFair {
		e.Fair = -1
	}
	q.open = q.open[:0]
	for i := range s.Open {
		if q.planner.takenH[i] { // cancelled by this plan
			continue
		}
		o := &s.Open[i]
		q.open = append(q.open, risk.Order{Outcome: int(o.Outcome), Side: o.Side, Price: o.Price, Size: o.Size})
	}
	e.Open = q.open
	q.accepted, q.rejected = q.accepted[:0], q.rejected[:0]
	for i := range plan.Places {
		o := &plan.Places[i]
		ro := o.Risk()
		if err := q.Checker.Check(ro, &e); err != nil {
			var rej *risk.Rejection
			errors.As(err, &rej)
			q.rejected = append(q.rejected, Rejected{Order: *o, Err: rej})
			continue
		}
		e.Open = append(e.Open, ro)
		q.accepted = append(q.accepted, *o)
	}
	q.open = e.Open
	r.Places, r.Rejected = q.accepted, q.rejected
	return r, nil
}

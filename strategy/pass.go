package strategy

import (
	"errors"

	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

// Quoter runs model → planner → risk for one market at a time, reusing its
// buffers. It is not safe for concurrent use; the slices of a PassResult are
// valid until the next Pass.
type Quoter struct {
	Model     Model
	Tolerance Tolerance
	Checker   *risk.Checker // nil skips the pre-trade checks
	// Memo lets a pass return the last pass's result, without running,
	// when the model names what its quotes depend on (QuoteKeyer) and
	// every input is the same: the model's key, the fair value, the
	// budget, the other markets' totals, the fill cool-downs at Now, and
	// the snapshot but for its Now and Trades. Books count as the same when
	// their level slices are the very ones of the last pass, so with Memo
	// a caller never writes the levels of a book it passed (the loop does
	// not: its venues hand over new slices for a changed book).
	Memo bool

	memo     passMemo
	key      []uint64
	slack    risk.Slack // how the last pass depended on the other markets' totals
	recalled int        // passes the memo answered
	planner  Planner
	desired  []Desired
	open     []risk.Order
	accepted []Order
	rejected []Rejected
	byLevel  []int
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
	Desired  []Desired   // the model's quotes, sized within the limits, before the planner
	Cancels  []OpenOrder // to cancel first
	Places   []Order     // planned and accepted by the risk checks
	Kept     []OpenOrder // open orders left in place
	Rejected []Rejected  // planned but refused by the risk checks
	Dropped  int         // changes left out for lack of budget
	// Limited counts, per limit (indexed by risk.Reason), the quotes this
	// pass shrank or left out to stay within the size-dependent risk
	// limits (see Quoter.Pass): held back, not refused.
	Limited [risk.NumReasons]int
}

// Limit returns the first limit on size or capital (in the order of the
// risk.Reason constants) that held a quote back in this pass, or 0 when
// none did. The cool-down and the shares already offered are left out:
// they hold single quotes back for a moment (after a fill; while a kept
// SELL is a little larger than its quote), not the market.
func (r *PassResult) Limit() risk.Reason {
	for i, n := range r.Limited {
		if n > 0 && risk.Reason(i) != risk.ReasonCooldown && risk.Reason(i) != risk.ReasonSellExceedsPosition {
			return risk.Reason(i)
		}
	}
	return 0
}

// Pass quotes one market. Call st.Observe(s) first when st is used. others
// sums the exposure of every other market (risk.MarketTotals).
//
// With a Checker, the model's quotes are first sized within the
// size-dependent limits (order size and notional, the shares held for a
// SELL, the worst-case position and the collateral at risk, counting the
// position and the other markets): nearest levels first, each quote is cut
// to what is left (risk.Checker.Fit) and dropped when that is below the
// market's minimum size. The quotes then shrink smoothly as a limit comes
// near, and the planner keeps the orders that match them. Every planned
// order still goes through Check; one that a kept order's extra size (within
// the tolerance) pushes past a limit is cut again rather than refused, and
// one on an outcome and side still in the cool-down after a fill waits
// (counted in Limited, not Rejected).
//
// With Memo set, a pass whose inputs are all those of the last one returns
// the last result (see Memo).
func (q *Quoter) Pass(s *Snapshot, st *MarketState, b Budget, others risk.Totals) (PassResult, error) {
	fair, hasFair := fairOf(s, st)
	res, hit, keyed := q.recall(s, st, b, others, fair, hasFair)
	if hit {
		q.recalled++
		return res, nil
	}
	res, err := q.pass(s, st, b, others, fair, hasFair)
	if err != nil {
		q.memo.ok = false
		return res, err
	}
	q.remember(s, b, others, res, keyed)
	return res, nil
}

func (q *Quoter) pass(s *Snapshot, st *MarketState, b Budget, others risk.Totals, fair float64, hasFair bool) (PassResult, error) {
	var r PassResult
	r.Fair, r.HasFair = fair, hasFair
	q.desired = q.Model.Quote(q.desired[:0], s, st)
	r.Desired = q.desired
	q.slack = risk.NewSlack()
	e := risk.Exposure{Fair: r.Fair, Position: s.Position, Locked: s.Locked, LastFill: s.LastFill, Now: s.Now, Others: others, Slack: &q.slack}
	if !r.HasFair {
		e.Fair = -1
	}
	g, err := newGrid(s.Tick, s.MinSize)
	if err != nil {
		return r, err
	}
	minCs := g.minCs
	if q.Checker != nil {
		q.fitDesired(&e, minCs, &r.Limited)
	}
	plan, err := q.planner.Plan(q.desired, s, q.Tolerance, b)
	if err != nil {
		return r, err
	}
	r.Cancels, r.Kept, r.Dropped = plan.Cancels, plan.Kept, plan.Dropped
	if q.Checker == nil {
		r.Places = plan.Places
		return r, nil
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
		err := q.Checker.Check(ro, &e)
		var rej *risk.Rejection
		if errors.As(err, &rej) && rej.Reason == risk.ReasonCooldown {
			r.Limited[risk.ReasonCooldown]++ // waits for the cool-down: held back, not refused
			continue
		}
		if errors.As(err, &rej) && sizeBound(rej.Reason) {
			if size, why := q.Checker.Fit(ro, &e); why != 0 {
				r.Limited[why]++
				cs := centiSharesDec(size)
				if cs < minCs {
					continue // nothing worth sending fits
				}
				o.Size = decimal.New(cs, -2)
				ro.Size = o.Size
				err = q.Checker.Check(ro, &e)
			}
		}
		if err != nil {
			rej = nil
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

package loop

import (
	"github.com/mmbot/mmbot/strategy"
)

// observeFlow hands each market's state the fills the cycle booked since
// the last call, with the market's snapshot of the cycle (the books after
// the fills), and measures against each quoted market's fair value the
// markouts that came due, into rep.Markouts. The cycle calls it before
// planning (so that WithAdverse sees the fills just found) and at its end
// (for the fills a cancel's read found); the daemon exports the markouts.
func (l *Loop) observeFlow(rep *CycleReport) {
	for ; l.flowFed < len(rep.Filled); l.flowFed++ {
		f := &rep.Filled[l.flowFed]
		mr := l.marketByCondition(f.ConditionID)
		if mr == nil {
			continue
		}
		of := strategy.OwnFill{Outcome: f.Outcome, Side: f.Side, Price: f.Price.InexactFloat64(),
			Size: f.Size.InexactFloat64(), Time: f.Time}
		if mr.hasFair {
			of.Mid = mr.fair // the fair value of the cycle that found the fill
		}
		mr.st.Adverse.AddFill(of, &mr.snap)
	}
	for _, mr := range l.markets {
		if mr.stopped == "" && mr.hasFair {
			rep.Markouts = mr.st.Adverse.Markouts.Measure(mr.snap.Now, mr.fair, rep.Markouts)
		}
	}
}

// marketByCondition returns the market with the condition id, or nil.
func (l *Loop) marketByCondition(id string) *marketRun {
	for _, mr := range l.markets {
		if mr.m.ConditionID == id {
			return mr
		}
	}
	return nil
}

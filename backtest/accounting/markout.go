package accounting

import (
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// markoutQueue holds the fills of one token waiting for the mid at fill
// time + h. Fills arrive in time order, so the queue is ordered by due time.
type markoutQueue struct {
	h      time.Duration
	q      []pendingMarkout
	head   int
	values []float64 // resolved markouts, in fill order
	mids   []float64 // resolved mid-to-mid markouts, in fill order
	sizes  []float64
}

type pendingMarkout struct {
	due   time.Time
	price exchange.Fixed
	mid2  exchange.Fixed // twice the mid at the fill
	size  exchange.Fixed
	sell  bool
}

func (m *markoutQueue) add(at time.Time, price, mid2, size exchange.Fixed, side exchange.Side) {
	m.q = append(m.q, pendingMarkout{due: at.Add(m.h), price: price, mid2: mid2, size: size, sell: side == exchange.Sell})
}

func (m *markoutQueue) due(at time.Time) bool {
	return m.head < len(m.q) && !m.q[m.head].due.After(at)
}

// resolve measures, for each fill, the realized spread side × (mark −
// fill price) and the mid-to-mid markout side × (mark − mid at the fill)
// (which leaves out the half spread and measures the adverse selection);
// it measures the pending markouts due at or before at (strictly
// before at when strict) against the mark, given as twice its value in
// Fixed units (so that a mid between two ticks is exact).
func (m *markoutQueue) resolve(at time.Time, mark2 exchange.Fixed, strict bool) {
	for m.head < len(m.q) {
		p := m.q[m.head]
		if p.due.After(at) || strict && p.due.Equal(at) {
			break
		}
		d, dm := mark2-2*p.price, mark2-p.mid2
		if p.sell {
			d, dm = -d, -dm
		}
		m.values = append(m.values, float64(d)/(2*exchange.FixedScale))
		m.mids = append(m.mids, float64(dm)/(2*exchange.FixedScale))
		m.sizes = append(m.sizes, p.size.Float())
		m.head++
	}
	if m.head == len(m.q) {
		m.q, m.head = m.q[:0], 0
	}
}

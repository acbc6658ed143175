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
	sizes  []float64
}

type pendingMarkout struct {
	due   time.Time
	price exchange.Fixed
	size  exchange.Fixed
	sell  bool
}

func (m *markoutQueue) add(at time.Time, price, size exchange.Fixed, side exchange.Side) {
	m.q = append(m.q, pendingMarkout{due: at.Add(m.h), price: price, size: size, sell: side == exchange.Sell})
}

func (m *markoutQueue) due(at time.Time) bool {
	return m.head < len(m.q) && !m.q[m.head].due.After(at)
}

// resolve measures the pending markouts due at or before at (strictly
// before at when strict) against the mark, given as twice its value in
// Fixed units (so that a mid between two ticks is exact).
func (m *markoutQueue) resolve(at time.Time, mark2 exchange.Fixed, strict bool) {
	for m.head < len(m.q) {
		p := m.q[m.head]
		if p.due.After(at) || strict && p.due.Equal(at) {
			break
		}
		d := mark2 - 2*p.price
		if p.sell {
			d = -d
		}
		v := float64(d) / (2 * exchange.FixedScale)
		m.values = append(m.values, v)
		m.sizes = append(m.sizes, p.size.Float())
		m.head++
	}
	if m.head == len(m.q) {
		m.q, m.head = m.q[:0], 0
	}
}

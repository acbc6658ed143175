package replay

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
)

// visQueue holds the events the data latency still hides from the
// strategy, oldest first, in a ring. A book is queued as a copy of what
// the strategy's view takes from it (its Fixed levels, in buffers the ring
// reuses), because the Source may reuse the book once the next event is
// read (recording.Reader's FixedLevelsOnly).
type visQueue struct {
	items   []visItem
	head, n int
}

// visItem is one queued event. For a book, e holds only its kind.
type visItem struct {
	e         recording.Event
	at        time.Time           // the event's time
	tok       *replayToken        // a book's or a trade's token
	fx        recording.FixedBook // a book's levels, copied
	dec       *recording.Book     // a book without Fixed levels, as it is
	tick, min decimal.Decimal
}

// push queues e, of token tok (nil: a meta event).
func (q *visQueue) push(e recording.Event, tok *replayToken) {
	if q.n == len(q.items) {
		q.grow()
	}
	it := &q.items[(q.head+q.n)%len(q.items)]
	q.n++
	it.at, it.tok = e.Time(), tok
	if e.Kind != recording.KindBook {
		it.e = e
		return
	}
	b := e.Book
	it.e, it.tick, it.min, it.dec = recording.Event{Kind: recording.KindBook}, b.TickSize, b.MinOrderSize, nil
	if fx := b.FixedLevels(); fx != nil {
		it.fx.CopyFrom(fx)
	} else {
		it.dec = b
	}
}

// front is the oldest queued event; the queue must not be empty.
func (q *visQueue) front() *visItem { return &q.items[q.head] }

// pop drops the oldest event, keeping its buffers for reuse.
func (q *visQueue) pop() {
	it := &q.items[q.head]
	it.e, it.dec, it.tok, it.tick, it.min = recording.Event{}, nil, nil, decimal.Decimal{}, decimal.Decimal{}
	q.head = (q.head + 1) % len(q.items)
	q.n--
}

// grow doubles the ring, moving the queued items (and their buffers) in
// order.
func (q *visQueue) grow() {
	items := make([]visItem, max(2*len(q.items), 64))
	for i := range q.n {
		items[i] = q.items[(q.head+i)%len(q.items)]
	}
	q.items, q.head = items, 0
}

package loop

import (
	"sort"
	"sync"
	"time"
)

// guardView is what the loop shows its Guard, and the one thing the two
// goroutines share (under mu): the orders that may rest at the exchange,
// the books behind them, and when the loop last judged its books and last
// completed a cycle. The loop's goroutine writes it as it goes; the guard
// reads a copy, and writes back only which orders it found final.
type guardView struct {
	mu      sync.Mutex
	conds   []string             // condition id per market (fixed at New)
	orders  map[string]viewOrder // by hash
	books   []time.Time          // per market: the older of its two books' times (zero: none yet)
	judged  time.Time            // start of the last cycle that read the books and judged their age
	done    time.Time            // end of the last cycle that completed without error (Start counts as one)
	settled []string             // hashes the guard found final at the exchange, for the loop to read back
}

// viewOrder is one order that may be live at the exchange.
type viewOrder struct {
	id      string // the exchange's id (the hash until the exchange names another)
	market  int    // -1: a market no longer configured
	settled bool   // the guard found it final at the exchange
}

func (v *guardView) init(conds []string) {
	v.conds = conds
	v.orders = map[string]viewOrder{}
	v.books = make([]time.Time, len(conds))
}

// expose records an order handed to the exchange (or found there), before
// the request that may make it live.
func (v *guardView) expose(hash, id string, market int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	o := v.orders[hash]
	o.id, o.market = id, market
	v.orders[hash] = o
}

// drop forgets an order the loop has seen final.
func (v *guardView) drop(hash string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.orders, hash)
}

// reset replaces the orders with the loop's (after reconciliation) and
// counts now as a completed cycle.
func (v *guardView) reset(orders map[string]*liveOrder, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.orders = map[string]viewOrder{}
	for h, lo := range orders {
		if lo.State != JIntent && !lo.State.Final() {
			v.orders[h] = viewOrder{id: orderID(lo), market: lo.market}
		}
	}
	v.done = now
}

// judge records the book times a cycle started at now has judged.
func (v *guardView) judge(books []time.Time, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	copy(v.books, books)
	v.judged = now
}

// completed records the end of a cycle that completed without error.
func (v *guardView) completed(now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.done = now
}

// settle records that the guard found these orders final at the exchange.
func (v *guardView) settle(hashes []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, h := range hashes {
		if o, ok := v.orders[h]; ok && !o.settled {
			o.settled = true
			v.orders[h] = o
			v.settled = append(v.settled, h)
		}
	}
}

// takeSettled returns and clears the orders the guard found final.
func (v *guardView) takeSettled() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.settled
	v.settled = nil
	return s
}

// viewCopy is a guard's look at the view.
type viewCopy struct {
	orders []viewOrderCopy // sorted by hash
	books  []time.Time
	conds  []string
	judged time.Time
	done   time.Time
}

type viewOrderCopy struct {
	hash string
	viewOrder
}

func (v *guardView) snapshot() viewCopy {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := viewCopy{books: append([]time.Time(nil), v.books...), conds: v.conds, judged: v.judged, done: v.done,
		orders: make([]viewOrderCopy, 0, len(v.orders))}
	for h, o := range v.orders {
		c.orders = append(c.orders, viewOrderCopy{hash: h, viewOrder: o})
	}
	sort.Slice(c.orders, func(i, j int) bool { return c.orders[i].hash < c.orders[j].hash })
	return c
}

// takeGuardSettled marks the orders the guard found final as suspect, so
// that the next order reads settle them (state, fills) in the journal. It
// returns how many it marked.
func (l *Loop) takeGuardSettled() int {
	n := 0
	for _, h := range l.view.takeSettled() {
		if lo, ok := l.orders[h]; ok {
			lo.suspect = true
			n++
		}
	}
	return n
}

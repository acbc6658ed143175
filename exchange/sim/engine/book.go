package engine

import "sort"

// level is one price of one side of a market book: a FIFO of orders.
type level struct {
	price      int64
	head, tail *Order
	size       int64 // sum of remaining sizes
	count      int
}

func (l *level) push(o *Order) {
	o.lvl = l
	o.prev = l.tail
	o.next = nil
	if l.tail != nil {
		l.tail.next = o
	} else {
		l.head = o
	}
	l.tail = o
	l.size += o.Remaining()
	l.count++
}

func (l *level) unlink(o *Order) {
	if o.prev != nil {
		o.prev.next = o.next
	} else {
		l.head = o.next
	}
	if o.next != nil {
		o.next.prev = o.prev
	} else {
		l.tail = o.prev
	}
	l.size -= o.Remaining()
	l.count--
	o.prev, o.next, o.lvl = nil, nil, nil
}

// bookSide holds the levels of one side, sorted so that the best level is
// last: bids ascending by price, asks descending. Popping the best level is
// then O(1) and inserting a new one a binary search plus a copy.
type bookSide struct {
	bid    bool
	levels []*level
}

// better reports whether price a is better than b on this side.
func (s *bookSide) better(a, b int64) bool {
	if s.bid {
		return a > b
	}
	return a < b
}

// best returns the best level or nil.
func (s *bookSide) best() *level {
	if len(s.levels) == 0 {
		return nil
	}
	return s.levels[len(s.levels)-1]
}

// search returns the index where price sits or would be inserted.
func (s *bookSide) search(price int64) int {
	return sort.Search(len(s.levels), func(i int) bool { return !s.better(price, s.levels[i].price) })
}

// levelFor returns the level at price, creating it when absent.
func (s *bookSide) levelFor(price int64) *level {
	i := s.search(price)
	if i < len(s.levels) && s.levels[i].price == price {
		return s.levels[i]
	}
	l := &level{price: price}
	s.levels = append(s.levels, nil)
	copy(s.levels[i+1:], s.levels[i:])
	s.levels[i] = l
	return l
}

// drop removes an empty level.
func (s *bookSide) drop(l *level) {
	n := len(s.levels)
	if n > 0 && s.levels[n-1] == l {
		s.levels[n-1] = nil
		s.levels = s.levels[:n-1]
		return
	}
	i := s.search(l.price)
	if i < n && s.levels[i] == l {
		copy(s.levels[i:], s.levels[i+1:])
		s.levels[n-1] = nil
		s.levels = s.levels[:n-1]
	}
}

// add rests o on this side.
func (s *bookSide) add(o *Order) { s.levelFor(o.bookPrice).push(o) }

// remove takes o out of the book, dropping its level when it empties.
func (s *bookSide) remove(o *Order) {
	l := o.lvl
	if l == nil {
		return
	}
	l.unlink(o)
	if l.count == 0 {
		s.drop(l)
	}
}

// crosses reports whether a taker on the other side with limit price p
// (in outcome-0 terms) can trade at level price lp.
func (s *bookSide) crosses(lp, p int64) bool {
	if s.bid { // resting bids, taker sells: bid must be >= taker's ask
		return lp >= p
	}
	return lp <= p // resting asks, taker buys
}

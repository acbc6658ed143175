package engine

import "time"

// Order is an order known to the engine. Callers may keep the pointer and
// read it (under the same serialisation as the engine) after it has left the
// book: its status and filled size stay as they were at the end.
type Order struct {
	ID      string
	Account string
	Market  string
	Token   string
	Outcome int
	Side    Side
	Price   int64 // limit price of its own token
	Size    int64 // original size
	Filled  int64
	TIF     TIF
	Expires time.Time
	Created time.Time
	Updated time.Time
	Status  Status
	Reason  Reason // why it was cancelled, when Status is Canceled
	Seq     uint64 // arrival order

	m          *market
	bid        bool  // rests on the bid side of the market book
	bookPrice  int64 // price in terms of outcome 0
	lvl        *level
	prev, next *Order
}

// Remaining is the unfilled size.
func (o *Order) Remaining() int64 { return o.Size - o.Filled }

// price0 converts a price of outcome `outcome` into terms of outcome 0.
func price0(outcome int, p int64) int64 {
	if outcome == 0 {
		return p
	}
	return Unit - p
}

// notional is size × price in base units of collateral. Sizes are multiples
// of SizeLot and prices multiples of 100 (the smallest tick), so it is exact.
func notional(size, price int64) int64 { return size / SizeLot * price / (Unit / SizeLot) }

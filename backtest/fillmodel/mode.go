package fillmodel

import "fmt"

// Mode is how optimistic the fill model is about our place in the queue.
type Mode uint8

// Fill modes; see docs/backtesting.md.
const (
	// ModeQueue (the default) keeps an estimate of the quantity ahead of
	// each order: trades at its price eat the queue first, cancels are split
	// between front and back by the QueueModel, and the order fills once the
	// queue ahead is gone, or when the price trades or is quoted through it.
	ModeQueue Mode = iota
	// ModeConservative fills only when the market goes through the order:
	// a trade at a strictly better price, or the opposite best strictly
	// crossing it. Trades at the order's own price never fill it.
	ModeConservative
	// ModeOptimistic fills the whole order as soon as a trade prints at its
	// price or the opposite best touches it.
	ModeOptimistic
)

// String returns the mode's name as used in configuration and reports.
func (m Mode) String() string {
	switch m {
	case ModeQueue:
		return "queue"
	case ModeConservative:
		return "conservative"
	case ModeOptimistic:
		return "optimistic"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode parses "queue", "conservative" or "optimistic"; "" is queue.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "queue":
		return ModeQueue, nil
	case "conservative":
		return ModeConservative, nil
	case "optimistic":
		return ModeOptimistic, nil
	}
	return 0, fmt.Errorf("fill mode %q: want queue, conservative or optimistic", s)
}

// FillReason says why a virtual order filled.
type FillReason uint8

// Fill reasons.
const (
	// FillQueue: a trade at the order's price after the queue ahead of it
	// was exhausted (queue mode).
	FillQueue FillReason = iota + 1
	// FillTradeThrough: a trade printed at a better price than the order's.
	FillTradeThrough
	// FillCross: the opposite side reached the order's price (a book whose
	// best ask is at or below our bid, or a taker on our side printing at
	// our price).
	FillCross
	// FillTouch: optimistic mode, a trade at the order's price.
	FillTouch
	// FillTaker: the order crossed the book when it became active and took
	// liquidity (the bot does not send such orders, but the model handles
	// them).
	FillTaker
)

// String returns the reason's name.
func (r FillReason) String() string {
	switch r {
	case FillQueue:
		return "queue"
	case FillTradeThrough:
		return "trade-through"
	case FillCross:
		return "cross"
	case FillTouch:
		return "touch"
	case FillTaker:
		return "taker"
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

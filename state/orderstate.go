package state

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// OrderState is where an order is in its life, as far as the journal knows.
type OrderState string

// Order states. Intent, Sent, Live and PartiallyFilled are open (non-final);
// Filled, Canceled and Failed are final.
const (
	// Intent: signed and committed, not yet handed to the exchange (or the
	// process died before it could record that it did).
	Intent OrderState = "intent"
	// Sent: handed to the exchange; the outcome is unknown (timeout,
	// "delayed", a lost response). It stays Sent until reconciled.
	Sent OrderState = "sent"
	// Live: resting on the book, nothing matched.
	Live OrderState = "live"
	// PartiallyFilled: resting on the book with part of its size matched.
	PartiallyFilled OrderState = "partially_filled"
	// Filled: its whole size matched.
	Filled OrderState = "filled"
	// Canceled: off the book, possibly with part of its size matched.
	Canceled OrderState = "canceled"
	// Failed: the exchange rejected it, or reconciliation found it never
	// reached the exchange. Nothing of it matched.
	Failed OrderState = "failed"
)

// allStates lists every state in life-cycle order.
var allStates = [...]OrderState{Intent, Sent, Live, PartiallyFilled, Filled, Canceled, Failed}

// AllStates returns every order state in life-cycle order.
func AllStates() []OrderState { s := allStates; return s[:] }

// Valid reports whether s is one of the seven states.
func (s OrderState) Valid() bool {
	for _, v := range allStates {
		if s == v {
			return true
		}
	}
	return false
}

// Final reports whether s admits no further change: Filled, Canceled, Failed.
func (s OrderState) Final() bool { return s == Filled || s == Canceled || s == Failed }

// transitions is the table of legal changes, from → set of to. Staying in the
// same state is legal for every state (reconciliation may apply the same
// answer twice) and is not listed.
var transitions = map[OrderState][]OrderState{
	// An intent may have reached the exchange before the process died, so
	// any answer the exchange gives about it is acceptable.
	Intent: {Sent, Live, PartiallyFilled, Filled, Canceled, Failed},
	// An order whose send had an unknown outcome: any answer.
	Sent: {Live, PartiallyFilled, Filled, Canceled, Failed},
	// On the book: it can only match or leave the book. It cannot fail.
	Live:            {PartiallyFilled, Filled, Canceled},
	PartiallyFilled: {Filled, Canceled},
}

// CanTransition reports whether an order may go from state from to state to.
// Same-state "transitions" are legal (idempotent re-application); nothing
// leaves a final state; both states must be valid.
func CanTransition(from, to OrderState) bool {
	if !from.Valid() || !to.Valid() {
		return false
	}
	if from == to {
		return true
	}
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// checkTransition is CanTransition as an error wrapping ErrIllegalTransition.
func checkTransition(hash string, from, to OrderState) error {
	if !CanTransition(from, to) {
		return fmt.Errorf("order %s: %s -> %s: %w", hash, from, to, ErrIllegalTransition)
	}
	return nil
}

// ParseOrderState parses a state name as written by String (case-insensitive).
func ParseOrderState(s string) (OrderState, error) {
	st := OrderState(strings.ToLower(strings.TrimSpace(s)))
	if !st.Valid() {
		return "", fmt.Errorf("unknown order state %q: %w", s, ErrInvalid)
	}
	return st, nil
}

// String returns the state's name.
func (s OrderState) String() string { return string(s) }

// StateFromOrderStatus maps the status of GET /data/order/{id} (LIVE,
// MATCHED, CANCELED) and its size matched to a journal state: LIVE with a
// positive size matched is PartiallyFilled. An unknown status is an error.
func StateFromOrderStatus(status string, sizeMatched decimal.Decimal) (OrderState, error) {
	switch strings.ToUpper(status) {
	case exchange.StatusLive:
		if sizeMatched.IsPositive() {
			return PartiallyFilled, nil
		}
		return Live, nil
	case exchange.StatusMatched:
		return Filled, nil
	case exchange.StatusCanceled:
		return Canceled, nil
	}
	return "", fmt.Errorf("unknown order status %q: %w", status, ErrInvalid)
}

// StateFromPlacement maps one POST /orders result for an order of type ot to
// a journal state. It is conservative: only answers that say for certain what
// happened move the order on. A failed placement (success false) is Failed;
// "live" is Live; "matched" is Filled only for FOK, whose match is whole by
// definition. A "matched" GTC, GTD or FAK order may have matched only in part
// (a GTC remainder rests on the book, a FAK remainder is gone), and
// "delayed", "unmatched" and any status this version does not know say
// nothing certain either: those leave the order Sent, to be settled by
// reconciliation (GET /data/order/{id}), never by sending it again.
func StateFromPlacement(r exchange.PlacementResult, ot exchange.OrderType) OrderState {
	if !r.Success {
		return Failed
	}
	switch strings.ToLower(r.Status) {
	case exchange.PlaceLive:
		return Live
	case exchange.PlaceMatched:
		if ot == exchange.FOK {
			return Filled
		}
	}
	return Sent
}

package fillmodel

import "testing"

// A book that crosses a resting order fills it by at most the volume it
// shows at or through the order's price, once; the rest keeps resting
// (issue 21: the old rule filled the whole order whatever size crossed).
func TestMatcherCrossCappedByVolume(t *testing.T) {
	for _, mode := range []Mode{ModeConservative, ModeQueue} {
		t.Run(mode.String(), func(t *testing.T) {
			runSteps(t, MatcherConfig{Mode: mode}, []mstep{
				{at: 0, op: "book", bids: "0.50:100", asks: "0.52:80"},
				{at: 0, op: "place", arg: "b1 BUY 0.50 100"},
				{at: 1, op: "advance", ahead: "b1=100"},
				// 10 offered below our bid: 10 fill, 90 rest.
				{at: 2, op: "book", bids: "0.48:50", asks: "0.49:10 0.52:80", ahead: "b1=0", fills: "b1 10@0.5 cross"},
				// The same book again offers nothing new.
				{at: 3, op: "book", bids: "0.48:50", asks: "0.49:10 0.52:80", ahead: "b1=0"},
				// 25 more below our price: 25 more fill.
				{at: 4, op: "book", bids: "0.48:50", asks: "0.48:25 0.49:10 0.52:80", ahead: "b1=0", fills: "b1 25@0.5 cross"},
				// The cross ends; a new one of 3 fills 3.
				{at: 5, op: "book", bids: "0.48:50", asks: "0.52:80", ahead: "b1=0"},
				{at: 6, op: "book", bids: "0.48:50", asks: "0.49:3 0.52:80", ahead: "b1=0", fills: "b1 3@0.5 cross"},
				// A trade through our price of 7 fills 7, not the 62 left.
				{at: 7, op: "trade", arg: "0.47 7 SELL", ahead: "b1=0", fills: "b1 7@0.5 trade-through"},
			})
		})
	}
}

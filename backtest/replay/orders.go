package replay

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/exchange"
)

// Order statuses of the replay, as GET /data/order/{id} spells them.
const (
	statusLive     = exchange.StatusLive
	statusMatched  = exchange.StatusMatched
	statusCanceled = exchange.StatusCanceled
)

// vorder is the venue's record of one of our orders.
type vorder struct {
	id        string
	tok       *replayToken
	side      exchange.Side
	price     exchange.Fixed
	size      exchange.Fixed
	matched   exchange.Fixed
	status    string
	cancelled bool   // a cancel was requested
	created   string // RFC 3339
	otype     exchange.OrderType
	// viewed is the last view, of status and matched as they were then:
	// Order answers it again while they did not change (the loop reads
	// an order every few cycles and writes nothing of it).
	viewed *exchange.Order
	viewSt string
	viewM  exchange.Fixed
}

// fixedIfSet converts a positive decimal; false for zero, negative or
// inexact values (which mean "unknown" or "unchanged").
func fixedIfSet(d decimal.Decimal) (exchange.Fixed, bool) {
	if !d.IsPositive() {
		return 0, false
	}
	f, err := exchange.FixedFromDecimal(d)
	return f, err == nil && f > 0
}

// parseItem turns a placement item into an order record, checking what the
// exchange checks. A non-empty message is the placement's errorMsg.
func (r *Replay) parseItem(it *exchange.PlacementItem) (*vorder, string) {
	so := &it.Order
	tok := r.tokens[so.TokenID]
	switch {
	case tok == nil:
		return nil, "unknown token " + so.TokenID
	case tok.resolved:
		return nil, "market is closed"
	case !so.Side.Valid():
		return nil, fmt.Sprintf("invalid side %q", so.Side)
	}
	otype := it.OrderType
	if otype == "" {
		otype = exchange.GTC
	}
	if otype != exchange.GTC && otype != exchange.GTD {
		return nil, fmt.Sprintf("order type %s is not simulated (the replay rests GTC and GTD orders)", otype)
	}
	price, size, err := fillmodel.OrderAmounts(so)
	if err != nil {
		return nil, err.Error()
	}
	if tick := tok.tick; tick > 0 {
		if price%tick != 0 {
			return nil, fmt.Sprintf("price %s is not on the tick grid %s", price, tick)
		}
		if price < tick || price > exchange.FixedScale-tick {
			return nil, fmt.Sprintf("price %s outside [%s, %s]", price, tick, exchange.FixedScale-tick)
		}
	} else if price <= 0 || price >= exchange.FixedScale {
		return nil, fmt.Sprintf("price %s outside (0, 1)", price)
	}
	if size < tok.minSize {
		return nil, fmt.Sprintf("size %s below the minimum %s", size, tok.minSize)
	}
	id := OrderHash(so)
	if _, dup := r.orders[id]; dup {
		return nil, "order already exists: " + id
	}
	return &vorder{id: id, tok: tok, side: so.Side, price: price, size: size, status: statusLive,
		created: r.now.UTC().Format(time.RFC3339Nano), otype: otype}, ""
}

// finish makes o final with status st and updates its token's quotes.
func (r *Replay) finish(o *vorder, st string) {
	if o.status != statusLive {
		return
	}
	o.status = st
	tok := o.tok
	for i, x := range tok.live {
		if x == o {
			tok.live = append(tok.live[:i], tok.live[i+1:]...)
			break
		}
	}
	r.quote(tok)
	// Keep the record for a while so that reads after the fact answer
	// (the loop reads a cancelled or filled order back within a cycle or
	// two); forget the final orders that are old enough, or too many.
	r.finals = append(r.finals, finalOrder{id: o.id, at: r.now})
	for r.finalHead < len(r.finals) {
		f := r.finals[r.finalHead]
		if len(r.finals)-r.finalHead <= finalOrdersKept && r.now.Sub(f.at) < finalOrdersFor {
			break
		}
		delete(r.orders, f.id)
		r.finals[r.finalHead] = finalOrder{}
		r.finalHead++
	}
	if r.finalHead > 1024 && r.finalHead*2 > len(r.finals) {
		n := copy(r.finals, r.finals[r.finalHead:])
		clear(r.finals[n:])
		r.finals, r.finalHead = r.finals[:n], 0
	}
}

// quote reports tok's current quotes (our best live buy and sell prices,
// cancels excluded) to the metrics.
func (r *Replay) quote(tok *replayToken) {
	var bid, ask exchange.Fixed
	for _, o := range tok.live {
		if o.cancelled {
			continue
		}
		if o.side == exchange.Buy {
			bid = max(bid, o.price)
		} else if ask == 0 || o.price < ask {
			ask = o.price
		}
	}
	tok.acc.OnQuote(r.now, bid, ask)
}

// view is o as GET /data/order/{id} answers it; the same value while the
// order's status and matched size stay (the caller must not write it).
func (o *vorder) view() *exchange.Order {
	if o.viewed != nil && o.viewSt == o.status && o.viewM == o.matched {
		return o.viewed
	}
	outcome := "Yes"
	if o.tok.outcome == 1 {
		outcome = "No"
	}
	o.viewSt, o.viewM = o.status, o.matched
	o.viewed = &exchange.Order{ID: o.id, Status: o.status, Market: o.tok.mk.m.ConditionID, OriginalSize: o.size.Decimal(),
		Outcome: outcome, Price: o.price.Decimal(), Side: o.side, SizeMatched: o.matched.Decimal(), AssetID: o.tok.id,
		Type: o.otype, CreatedAt: o.created, UpdatedAt: o.created, AssociateTrades: []string{}}
	return o.viewed
}

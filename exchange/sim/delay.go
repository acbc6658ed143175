package sim

import (
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// A market with a matching delay (its catalog seconds_delay) holds every
// placement that long before it reaches the matching engine, as the live
// exchange does: POST /orders answers "delayed" at once, GET
// /data/order/{id} shows the order LIVE and unmatched meanwhile, and a
// cancel in the meantime keeps it from ever reaching the book. Collateral
// and shares are checked (and reserved) when the order reaches the
// engine; one that fails then is cancelled.

// delayedOrder is a placement waiting for its market's delay.
type delayedOrder struct {
	req engine.OrderRequest
	rec *orderRecord
	at  time.Time // when it reaches the engine
}

// delay is a market's matching delay.
func (s *mstate) delay() time.Duration {
	return time.Duration(s.m.SecondsDelay) * time.Second
}

// hold keeps a placement until its market's delay has passed; e.mu is held.
func (e *Exchange) hold(req engine.OrderRequest, rec *orderRecord, now time.Time) exchange.PlacementResult {
	rec.o = &engine.Order{ID: req.ID, Account: req.Account, Market: rec.s.id, Token: req.Token, Outcome: outcomeOf(rec.s, req.Token), Side: req.Side,
		Price: req.Price, Size: req.Size, TIF: req.TIF, Expires: req.Expires, Created: now, Updated: now, Status: engine.Live}
	rec.held = true
	e.orders[req.ID] = rec
	e.delayed = append(e.delayed, delayedOrder{req: req, rec: rec, at: now.Add(rec.s.delay())})
	return exchange.PlacementResult{Success: true, OrderID: req.ID, Status: exchange.PlaceDelayed, MakingAmount: "0", TakingAmount: "0"}
}

// release sends the held placements whose delay has passed to the engine,
// in the order they came; e.mu is held.
func (e *Exchange) release(now time.Time) {
	kept := e.delayed[:0]
	for _, d := range e.delayed {
		if d.at.After(now) {
			kept = append(kept, d)
			continue
		}
		rec := d.rec
		rec.held = false
		if rec.o.Status != engine.Live { // cancelled while held
			continue
		}
		res, _ := e.eng.Place(d.req, d.at)
		if res.Order == nil { // refused on arrival (funds, a closed market)
			rec.o.Status, rec.o.Reason, rec.o.Updated = engine.Canceled, engine.ReasonResolved, d.at
			continue
		}
		rec.o = res.Order
		e.afterPlace(rec.s, res, rec, d.at)
	}
	clear(e.delayed[len(kept):])
	e.delayed = kept
}

// cancelHeld cancels a placement still held by its market's delay; e.mu is
// held.
func (e *Exchange) cancelHeld(rec *orderRecord, now time.Time) {
	rec.o.Status, rec.o.Reason, rec.o.Updated = engine.Canceled, engine.ReasonUser, now
}

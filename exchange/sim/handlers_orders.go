package sim

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// Order-book API error texts of the order endpoints (project choice).
const (
	msgOrderNotFound   = "order not found"
	msgAlreadyMatched  = "order already matched"
	msgAlreadyCanceled = "order already canceled"
)

// refuseMaintenance answers 503 (Faults.MaintenanceStatus) during a
// maintenance window.
func (e *Exchange) refuseMaintenance(w http.ResponseWriter) bool {
	on, until, status := e.faults.maintenance(e.cfg.WallClock())
	if !on {
		return false
	}
	wait := until.Sub(e.cfg.WallClock())
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
	clobError(w, status, "maintenance: order placement and cancellation are paused until "+until.UTC().Format(time.RFC3339))
	return true
}

// readAuthed reads the body and authenticates; ok is false after an error
// was written.
func (e *Exchange) readAuthed(w http.ResponseWriter, r *http.Request) (*account, []byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		clobError(w, http.StatusBadRequest, "invalid body: "+err.Error())
		return nil, nil, false
	}
	a, err := e.authenticate(r, body)
	if err != nil {
		unauthorized(w, err)
		return nil, nil, false
	}
	return a, body, true
}

// POST /clob/orders
func (e *Exchange) handlePlaceOrders(w http.ResponseWriter, r *http.Request) {
	if e.refuseMaintenance(w) {
		return
	}
	a, body, ok := e.readAuthed(w, r)
	if !ok {
		return
	}
	items, err := decodePlacements(body)
	if err != nil {
		clobError(w, http.StatusBadRequest, "invalid body: want a JSON array of order placement items: "+err.Error())
		return
	}
	noteOrders(r, len(items))
	if len(items) == 0 || len(items) > e.cfg.MaxBatch {
		clobError(w, http.StatusBadRequest, fmt.Sprintf("invalid body: a batch holds 1 to %d orders, got %d", e.cfg.MaxBatch, len(items)))
		return
	}
	if ok, wait := e.limiter.admit(clientIP(r.RemoteAddr), orderCosts(len(items)), e.cfg.WallClock()); !ok {
		writeThrottled(w, "clob", wait)
		return
	}
	out := make([]exchange.PlacementResult, len(items))
	e.mu.Lock()
	for i := range items {
		out[i] = e.placeOne(a, &items[i])
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func fail(id, format string, args ...any) exchange.PlacementResult {
	return exchange.PlacementResult{Success: false, ErrorMsg: fmt.Sprintf(format, args...), OrderID: id}
}

var tifs = map[exchange.OrderType]engine.TIF{exchange.GTC: engine.GTC, exchange.GTD: engine.GTD, exchange.FOK: engine.FOK, exchange.FAK: engine.FAK}

// placeOne checks, verifies and places one order; e.mu is held.
func (e *Exchange) placeOne(a *account, it *exchange.PlacementItem) exchange.PlacementResult {
	o := it.Order
	if it.Owner != a.apiKey {
		return fail("", "owner %q is not the API key of the request", it.Owner)
	}
	tif, ok := tifs[it.OrderType]
	if !ok {
		return fail("", "invalid orderType %q: want GTC, GTD, FOK or FAK", it.OrderType)
	}
	if !o.Side.Valid() {
		return fail("", "invalid side %q: want BUY or SELL", o.Side)
	}
	s, ok := e.byToken[o.TokenID]
	if !ok {
		return fail("", "unknown tokenId %q", o.TokenID)
	}
	if o.ConditionID != "" && !strings.EqualFold(o.ConditionID, s.m.ConditionID) {
		return fail("", "conditionId %s is not the market of token %s", o.ConditionID, o.TokenID)
	}
	if !strings.EqualFold(o.Maker, a.wallet) {
		return fail("", "maker %s is not the wallet of the API key (%s)", o.Maker, a.wallet)
	}
	id, err := e.verifier.OrderHash(o, s.m.NegRisk)
	if err != nil {
		return fail("", "invalid order: %v", err)
	}
	signed, err := e.verifier.VerifyOrder(o, s.m.NegRisk, e.walletOwner)
	if err != nil {
		return fail(id, "invalid order signature: %v", err)
	}
	if !strings.EqualFold(signed, a.address) {
		return fail(id, "order signed by %s, not by the API key's address %s", signed, a.address)
	}
	if _, dup := e.orders[id]; dup {
		return fail(id, "order %s already exists", id)
	}
	if s.closed {
		return fail(id, "market %s is closed", s.m.ConditionID)
	}
	price, size, err := priceSize(o)
	if err != nil {
		return fail(id, "%v", err)
	}
	now := e.clock()
	req := engine.OrderRequest{ID: id, Account: a.id(), Token: o.TokenID, Side: engineSide(o.Side), Price: price, Size: size, TIF: tif}
	if tif == engine.GTD {
		req.Expires = s.m.EndDate
	}
	if s.delay() > 0 {
		rec := &orderRecord{s: s, owner: a.apiKey, maker: a.wallet, orderType: it.OrderType}
		if !isZeroBytes32(o.Builder) {
			rec.builder = strings.ToLower(o.Builder)
		}
		return e.hold(req, rec, now)
	}
	res, err := e.eng.Place(req, now)
	if res.Order == nil {
		return fail(id, "%s", orderErrMsg(err))
	}
	rec := &orderRecord{o: res.Order, s: s, owner: a.apiKey, maker: a.wallet, orderType: it.OrderType}
	if !isZeroBytes32(o.Builder) {
		rec.builder = strings.ToLower(o.Builder)
	}
	e.orders[id] = rec
	e.afterPlace(s, res, rec, now)
	pr := exchange.PlacementResult{Success: err == nil, OrderID: id,
		MakingAmount: exchange.Fixed(res.Making).Decimal().String(), TakingAmount: exchange.Fixed(res.Taking).Decimal().String()}
	switch {
	case err != nil:
		pr.ErrorMsg, pr.Status = orderErrMsg(err), exchange.PlaceUnmatched
	case res.Order.Filled > 0:
		pr.Status = exchange.PlaceMatched
	default:
		pr.Status = exchange.PlaceLive
	}
	return pr
}

func engineSide(s exchange.Side) engine.Side {
	if s == exchange.Sell {
		return engine.Sell
	}
	return engine.Buy
}

// orderErrMsg words an engine refusal.
func orderErrMsg(err error) string {
	switch {
	case errors.Is(err, engine.ErrFOKUnfilled):
		return "order couldn't be fully filled: FOK orders are filled completely or killed"
	case errors.Is(err, engine.ErrFAKUnfilled):
		return "no resting orders to match: FAK order killed"
	case err == nil:
		return ""
	}
	return err.Error()
}

// priceSize derives the limit price and size (base units) from the signed
// amounts: BUY makerAmount = size × price, takerAmount = size; SELL the
// reverse. The price must come out exact to 6 decimals; one out of the range
// of exchange.Fixed saturates, and the engine refuses it as any price above 1.
func priceSize(o exchange.SignedOrder) (price, size int64, err error) {
	maker, err1 := strconv.ParseInt(o.MakerAmount, 10, 64)
	taker, err2 := strconv.ParseInt(o.TakerAmount, 10, 64)
	if err1 != nil || err2 != nil || maker <= 0 || taker <= 0 {
		return 0, 0, fmt.Errorf("invalid amounts: makerAmount %q and takerAmount %q must be positive integers of base units", o.MakerAmount, o.TakerAmount)
	}
	coll, shares := maker, taker
	if o.Side == exchange.Sell {
		coll, shares = taker, maker
	}
	p, err := exchange.Fixed(coll).Div(exchange.Fixed(shares), exchange.RoundExact)
	if errors.Is(err, exchange.ErrInexact) {
		return 0, 0, fmt.Errorf("invalid amounts: price %s/%s has more than 6 decimals", exchange.Fixed(coll), exchange.Fixed(shares))
	}
	return int64(p), shares, nil
}

// DELETE /clob/order
func (e *Exchange) handleCancel(w http.ResponseWriter, r *http.Request) {
	if e.refuseMaintenance(w) {
		return
	}
	a, body, ok := e.readAuthed(w, r)
	if !ok {
		return
	}
	var req exchange.CancelRequest
	if err := decodeStrict(body, &req); err != nil {
		clobError(w, http.StatusBadRequest, "invalid body: want {\"orderId\": string}: "+err.Error())
		return
	}
	if req.OrderID == "" {
		clobError(w, http.StatusBadRequest, "invalid body: orderId is required")
		return
	}
	out := exchange.CancelResult{Canceled: []string{}, NotCanceled: map[string]string{}}
	e.mu.Lock()
	rec := e.orders[strings.ToLower(req.OrderID)]
	switch {
	case rec == nil || rec.owner != a.apiKey:
		out.NotCanceled[req.OrderID] = msgOrderNotFound
	case rec.o.Status == engine.Matched:
		out.NotCanceled[req.OrderID] = msgAlreadyMatched
	case rec.o.Status == engine.Canceled:
		out.NotCanceled[req.OrderID] = msgAlreadyCanceled
	case rec.held:
		e.cancelHeld(rec, e.clock())
		out.Canceled = append(out.Canceled, rec.o.ID)
	default:
		if _, err := e.eng.Cancel(rec.o.ID, a.id(), e.clock()); err != nil {
			out.NotCanceled[req.OrderID] = err.Error()
		} else {
			out.Canceled = append(out.Canceled, rec.o.ID)
			e.touch(rec.s.id)
		}
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// GET /clob/data/order/{id}
func (e *Exchange) handleGetOrder(w http.ResponseWriter, r *http.Request) {
	a, _, ok := e.readAuthed(w, r)
	if !ok {
		return
	}
	e.mu.Lock()
	rec := e.orders[strings.ToLower(r.PathValue("id"))]
	if rec == nil || rec.owner != a.apiKey {
		e.mu.Unlock()
		clobError(w, http.StatusNotFound, msgOrderNotFound)
		return
	}
	out := exchange.OrderEnvelope{Order: rec.read()}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

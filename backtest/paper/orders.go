package paper

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/exchange"
)

// paperOrder is the venue's record of one virtual order; it outlives the
// Matcher's (which ends when the order is filled or cancelled) so that the
// loop can read the outcome.
type paperOrder struct {
	id        string
	tok       *paperToken
	side      exchange.Side
	typ       exchange.OrderType
	price     exchange.Fixed
	size      exchange.Fixed
	matched   exchange.Fixed
	status    string // exchange.StatusLive, StatusMatched or StatusCanceled
	cancelReq bool
	created   time.Time
	updated   time.Time
}

func (o *paperOrder) final() bool { return o.status != exchange.StatusLive }

// PlaceOrders places the items as virtual orders: nothing is sent. Each item
// is checked as the exchange would (known token, GTC or GTD, amounts that
// give a price on the tick grid within [tick, 1 − tick] and at least the
// minimum size); a refused item gets success false and an error message.
// An order that crosses the book takes liquidity when it becomes active.
func (v *Venue) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("paper venue: empty batch: %w", exchange.ErrBadRequest)
	}
	if len(items) > v.cfg.MaxBatch {
		return nil, fmt.Errorf("paper venue: %d orders in one batch, at most %d: %w", len(items), v.cfg.MaxBatch, exchange.ErrBadRequest)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.cfg.Now()
	out := make([]exchange.PlacementResult, len(items))
	for i := range items {
		out[i] = v.placeOne(&items[i], now)
	}
	return out, nil
}

func (v *Venue) placeOne(it *exchange.PlacementItem, now time.Time) exchange.PlacementResult {
	o, err := v.decode(it)
	if err != nil {
		v.stats.Refused++
		return exchange.PlacementResult{Success: false, ErrorMsg: err.Error()}
	}
	v.seq++
	o.id = "paper-" + strconv.Itoa(v.seq)
	o.status, o.created, o.updated = exchange.StatusLive, now, now
	if _, err := o.tok.m.Place(fillmodel.VirtualOrder{ID: o.id, Side: o.side, Price: o.price, Size: o.size, Delay: o.tok.delay}, now); err != nil {
		v.stats.Refused++
		return exchange.PlacementResult{Success: false, ErrorMsg: err.Error()}
	}
	v.orders[o.id] = o
	v.stats.Placed++
	v.applyFills(o.tok.m.Advance(now), now)
	res := exchange.PlacementResult{Success: true, OrderID: o.id, Status: exchange.PlaceLive}
	switch {
	case o.status == exchange.StatusMatched:
		res.Status = exchange.PlaceMatched
	case o.tok.delay > 0:
		res.Status = exchange.PlaceDelayed
	}
	return res
}

// decode reads a placement item's token, side, price and size from its
// signed amounts and checks them against the token's terms.
func (v *Venue) decode(it *exchange.PlacementItem) (*paperOrder, error) {
	so := &it.Order
	pt := v.tokens[so.TokenID]
	switch {
	case pt == nil:
		return nil, fmt.Errorf("invalid order: unknown token id %q", so.TokenID)
	case !so.Side.Valid():
		return nil, fmt.Errorf("invalid order: side %q", so.Side)
	}
	typ := it.OrderType
	if typ == "" {
		typ = exchange.GTC
	}
	if typ != exchange.GTC && typ != exchange.GTD {
		return nil, fmt.Errorf("invalid order: order type %s is not supported by the paper venue (GTC and GTD are)", typ)
	}
	price, shares, err := fillmodel.OrderAmounts(so)
	if err != nil {
		return nil, fmt.Errorf("invalid order: %w", err)
	}
	switch {
	case price%pt.tick != 0:
		return nil, fmt.Errorf("invalid order: price %s is not on the tick grid %s", price, pt.tick)
	case price < pt.tick || price > exchange.FixedScale-pt.tick:
		return nil, fmt.Errorf("invalid order: price %s outside [%s, %s]", price, pt.tick, exchange.Fixed(exchange.FixedScale)-pt.tick)
	case shares < pt.minSize:
		return nil, fmt.Errorf("invalid order: size %s below the minimum %s", shares, pt.minSize)
	}
	return &paperOrder{tok: pt, side: so.Side, typ: typ, price: price, size: shares}, nil
}

// CancelOrder cancels a virtual order. A live order is confirmed cancelled
// at once (with a cancel latency, fills before it takes effect still
// happen, as on the exchange); a filled or cancelled one is reported in
// not_canceled; an unknown id is exchange.ErrNotFound.
func (v *Venue) CancelOrder(ctx context.Context, orderID string) (*exchange.CancelResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.cfg.Now()
	o := v.orders[orderID]
	if o == nil {
		return nil, fmt.Errorf("paper venue: order %s: %w", orderID, exchange.ErrNotFound)
	}
	v.applyFills(o.tok.m.Advance(now), now)
	v.sweepCancels(now)
	if o.final() || o.cancelReq {
		why := "order already matched"
		if o.status != exchange.StatusMatched {
			why = "order already canceled"
		}
		return &exchange.CancelResult{Canceled: []string{}, NotCanceled: map[string]string{orderID: why}}, nil
	}
	if _, err := o.tok.m.Cancel(orderID, now); err != nil {
		return nil, fmt.Errorf("paper venue: cancel %s: %w", orderID, err)
	}
	o.cancelReq = true
	v.cancelling = append(v.cancelling, o)
	v.stats.Cancels++
	v.applyFills(o.tok.m.Advance(now), now)
	v.sweepCancels(now)
	return &exchange.CancelResult{Canceled: []string{orderID}, NotCanceled: map[string]string{}}, nil
}

// Order reads a virtual order as GET /data/order/{id} would return it.
func (v *Venue) Order(ctx context.Context, id string) (*exchange.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.cfg.Now()
	o := v.orders[id]
	if o == nil {
		return nil, fmt.Errorf("paper venue: order %s: %w", id, exchange.ErrNotFound)
	}
	v.applyFills(o.tok.m.Advance(now), now)
	v.sweepCancels(now)
	outcome := "Yes"
	if o.tok.outcome == 1 {
		outcome = "No"
	}
	return &exchange.Order{
		AssociateTrades: []string{}, ID: o.id, Status: o.status, Market: o.tok.cond, OriginalSize: o.size.Decimal(),
		Outcome: outcome, Price: o.price.Decimal(), Side: o.side, SizeMatched: o.matched.Decimal(), AssetID: o.tok.id,
		Type: o.typ, CreatedAt: strconv.FormatInt(o.created.Unix(), 10), UpdatedAt: strconv.FormatInt(o.updated.Unix(), 10),
	}, nil
}

// applyFills books the Matcher's fills on the venue's order records; v.mu
// is held.
func (v *Venue) applyFills(fills []fillmodel.Fill, now time.Time) {
	for i := range fills {
		f := &fills[i]
		o := v.orders[f.OrderID]
		if o == nil {
			continue
		}
		o.matched += f.Size
		o.updated = now
		if f.Remaining == 0 {
			o.status = exchange.StatusMatched
			v.finals = append(v.finals, o)
		}
		v.stats.Fills++
		if f.Taker {
			v.stats.TakerFills++
		}
		v.stats.FilledSize += f.Size
		v.stats.FilledNotional = v.stats.FilledNotional.Add(f.Price.Decimal().Mul(f.Size.Decimal()))
	}
}

// sweepCancels marks cancelled the orders whose cancel has taken effect in
// their Matcher; v.mu is held.
func (v *Venue) sweepCancels(now time.Time) {
	keep := v.cancelling[:0]
	for _, o := range v.cancelling {
		if o.final() {
			continue
		}
		if _, open := o.tok.m.Order(o.id); open {
			keep = append(keep, o)
			continue
		}
		o.status, o.updated = exchange.StatusCanceled, now
		v.finals = append(v.finals, o)
	}
	clear(v.cancelling[len(keep):])
	v.cancelling = keep
}

// forgetFinals drops final orders older than KeepFinal; v.mu is held.
func (v *Venue) forgetFinals(now time.Time) {
	v.sweepCancels(now)
	n := 0
	for n < len(v.finals) && now.Sub(v.finals[n].updated) > v.cfg.KeepFinal {
		delete(v.orders, v.finals[n].id)
		n++
	}
	if n > 0 {
		v.finals = append(v.finals[:0], v.finals[n:]...)
	}
}

// mergeOwn adds our resting virtual orders to the book the loop gets, as
// the exchange's book would show them; v.mu is held.
func (v *Venue) mergeOwn(pt *paperToken, b *exchange.OrderBook) {
	v.resting = pt.m.Resting(v.resting[:0])
	if len(v.resting) == 0 {
		return
	}
	bids := append([]exchange.PriceLevel(nil), b.Bids...)
	asks := append([]exchange.PriceLevel(nil), b.Asks...)
	for i := range v.resting {
		r := &v.resting[i]
		if r.Remaining <= 0 {
			continue
		}
		if r.Side == exchange.Buy {
			bids = addLevel(bids, r.Price, r.Remaining, true)
		} else {
			asks = addLevel(asks, r.Price, r.Remaining, false)
		}
	}
	b.Bids, b.Asks = bids, asks
}

// addLevel adds size at price to a side sorted best first (descending for
// bids), inserting the level when it is not there.
func addLevel(levels []exchange.PriceLevel, price, size exchange.Fixed, desc bool) []exchange.PriceLevel {
	p, s := price.Decimal(), size.Decimal()
	for i := range levels {
		c := levels[i].Price.Cmp(p)
		if c == 0 {
			levels[i].Size = levels[i].Size.Add(s)
			return levels
		}
		if (desc && c < 0) || (!desc && c > 0) {
			levels = append(levels, exchange.PriceLevel{})
			copy(levels[i+1:], levels[i:])
			levels[i] = exchange.PriceLevel{Price: p, Size: s}
			return levels
		}
	}
	return append(levels, exchange.PriceLevel{Price: p, Size: s})
}

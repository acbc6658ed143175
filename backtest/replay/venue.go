package replay

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// This file is the Replay's loop.Venue side.

var (
	_ loop.Venue = (*Replay)(nil)
	_ loop.Clock = (*Replay)(nil)
)

// Books implements loop.Venue: each token's latest book that the data
// latency lets the strategy see, stamped with the time of the exchange
// state it shows. A token with no book seen yet is left out; an unknown
// token, or one whose market has resolved, fails with exchange.ErrNotFound
// (as a closed market does on the exchange).
//
// A token whose visible book and visible own orders did not change since
// the last call gets the very same level slices again (bookMemo): the
// loop then knows the book is the one it checked already. The slices are
// never written after they are returned.
func (r *Replay) Books(ctx context.Context, tokenIDs []string) ([]exchange.OrderBook, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cut := r.readCutoff()
	stamp := strconv.FormatInt(cut.UnixMilli(), 10)
	out := make([]exchange.OrderBook, 0, len(tokenIDs))
	for _, id := range tokenIDs {
		tok := r.tokens[id]
		switch {
		case tok == nil:
			return nil, fmt.Errorf("backtest: book of token %s: %w", id, exchange.ErrNotFound)
		case tok.visResolved:
			return nil, fmt.Errorf("backtest: book of token %s: market resolved: %w", id, exchange.ErrNotFound)
		case !tok.hasVis:
			continue
		}
		ob := exchange.OrderBook{Market: tok.mk.m.ConditionID, AssetID: id, Timestamp: stamp,
			TickSize: tok.visTick, MinOrderSize: tok.visMin, NegRisk: tok.mk.m.NegRisk}
		r.ownBuf = r.ownBuf[:0]
		if !r.cfg.HideOwnOrders {
			r.ownBuf = r.ownLevels(tok, cut, r.ownBuf)
		}
		m := &tok.memo
		if !m.ok || m.ver != tok.visVer || !slices.Equal(m.own, r.ownBuf) {
			r.buildBook(tok, m)
		}
		ob.Bids, ob.Asks = m.bids, m.asks
		out = append(out, ob)
	}
	return out, nil
}

// bookMemo is the levels Books last returned for a token: its visible book
// (visVer) with our orders (own) added. When the book had Fixed levels
// (fromFx), fxBids and fxAsks are a copy of them: a new visible book with
// the same levels gets the same slices again.
type bookMemo struct {
	ok             bool
	ver            uint64
	own            []ownLevel
	bids, asks     []exchange.PriceLevel
	fromFx         bool
	fxBids, fxAsks []recording.Level
}

// ownLevel is one of our orders as Books adds it to a book.
type ownLevel struct {
	buy         bool
	price, size exchange.Fixed
}

// buildBook makes tok's levels anew into m: the visible book's, with the
// own levels in r.ownBuf added.
//
// A visible book of Fixed levels equal to those the memo's slices were
// built from, with the same own levels, gets those slices: they hold
// what building would give.
func (r *Replay) buildBook(tok *replayToken, m *bookMemo) {
	if fx := &tok.visFx; m.ok && m.fromFx && tok.visDec == nil && slices.Equal(m.fxBids, fx.Bids) && slices.Equal(m.fxAsks, fx.Asks) &&
		slices.Equal(m.own, r.ownBuf) {
		m.ver = tok.visVer
		return
	}
	var bids, asks []exchange.PriceLevel
	if b := tok.visDec; b != nil {
		bids, asks = slices.Clone(b.Bids), slices.Clone(b.Asks)
	} else {
		// Non-nil, as a decoded book's sides are.
		fx := &tok.visFx
		bids = r.levels.Append(make([]exchange.PriceLevel, 0, len(fx.Bids)), fx.Bids)
		asks = r.levels.Append(make([]exchange.PriceLevel, 0, len(fx.Asks)), fx.Asks)
	}
	for _, o := range r.ownBuf {
		if o.buy {
			bids = addOwnLevel(bids, o.price, o.size, true)
		} else {
			asks = addOwnLevel(asks, o.price, o.size, false)
		}
	}
	fromFx := tok.visDec == nil
	fxBids, fxAsks := m.fxBids[:0], m.fxAsks[:0]
	if fromFx {
		fxBids, fxAsks = append(fxBids, tok.visFx.Bids...), append(fxAsks, tok.visFx.Asks...)
	}
	*m = bookMemo{ok: true, ver: tok.visVer, own: append(m.own[:0], r.ownBuf...), bids: bids, asks: asks,
		fromFx: fromFx, fxBids: fxBids, fxAsks: fxAsks}
}

// ownLevels appends our orders resting by cut, as the exchange's book would
// show them.
func (r *Replay) ownLevels(tok *replayToken, cut time.Time, dst []ownLevel) []ownLevel {
	r.restBuf = tok.m.Resting(r.restBuf[:0])
	for i := range r.restBuf {
		o := &r.restBuf[i]
		if o.Remaining <= 0 || o.ActiveAt.After(cut) {
			continue
		}
		dst = append(dst, ownLevel{buy: o.Side == exchange.Buy, price: o.Price, size: o.Remaining})
	}
	return dst
}

// addOwnLevel adds size at price to a side sorted best first (descending
// when desc), inserting the level where it belongs.
func addOwnLevel(levels []exchange.PriceLevel, price, size exchange.Fixed, desc bool) []exchange.PriceLevel {
	p := price.Decimal()
	i, found := slices.BinarySearchFunc(levels, p, func(l exchange.PriceLevel, p decimal.Decimal) int {
		if desc {
			return p.Cmp(l.Price)
		}
		return l.Price.Cmp(p)
	})
	if found {
		levels[i].Size = levels[i].Size.Add(size.Decimal())
		return levels
	}
	return slices.Insert(levels, i, exchange.PriceLevel{Price: p, Size: size.Decimal()})
}

// Trades implements loop.Venue: the recorded tape the strategy has seen,
// in the data API's shape (asset "<condition_id>:<outcome_index>", Unix
// seconds): the newest p.Limit trades (default 100; at most
// Config.TapeSize per market) of the markets in p.Market (all when
// empty) and of side p.Side (any when empty), oldest first; trades at the
// same time in the order of the markets, then of the tape.
//
// Each market's tape is in time order as recorded, so the markets' tapes
// are merged from the newest end and only the newest p.Limit trades are
// read (tape_merge.go), once per change of the tapes; a market whose recording put a trade before its
// predecessor falls back to a stable sort of everything picked.
func (r *Replay) Trades(ctx context.Context, p exchange.TradesParams) ([]exchange.Trade, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.readCutoff()
	limit := 100
	if p.Limit != nil {
		limit = *p.Limit
	}
	sel := r.tapeSel[:0]
	sorted := true
	for _, mk := range r.markets {
		if len(p.Market) > 0 && !slices.Contains(p.Market, mk.m.ConditionID) {
			continue
		}
		sel = append(sel, mk)
		sorted = sorted && !mk.unsorted
	}
	r.tapeSel = sel
	if sorted {
		return r.tapeMemo.merge(r.tapeVer, sel, p.Side, limit), nil
	}
	var picked []*tapeTrade
	for _, mk := range sel {
		for i := mk.n; i > 0; i-- { // oldest first
			tt := mk.tape[(mk.head-i+len(mk.tape))%len(mk.tape)]
			if p.Side == "" || tt.tr.Side == p.Side {
				picked = append(picked, tt)
			}
		}
	}
	if len(sel) > 1 {
		slices.SortStableFunc(picked, func(a, b *tapeTrade) int { return a.at.Compare(b.at) })
	}
	if len(picked) > limit {
		picked = picked[len(picked)-limit:]
	}
	out := make([]exchange.Trade, len(picked))
	for i, tt := range picked {
		out[i] = tt.tr
	}
	return out, nil
}

// PlaceOrders implements loop.Venue. It first waits (in simulated time)
// for the POST /order rate buckets, one unit per order, as the client does;
// then each valid order goes to its token's Matcher, and the call returns
// when the last of them arrives (the order latency). A result's status is
// "matched" when the order filled completely on arrival, "delayed" in a
// market with a matching delay (seconds_delay: the order reaches the book,
// and can match, that long after it arrives), else "live".
func (r *Replay) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, nil
	}
	if err := r.throttle(r.buckets.post, len(items)); err != nil {
		return nil, err
	}
	now := r.now
	res := make([]exchange.PlacementResult, len(items))
	placed := make([]*vorder, len(items))
	var latest time.Time
	for i := range items {
		o, msg := r.parseItem(&items[i])
		if msg != "" {
			res[i] = exchange.PlacementResult{Success: false, ErrorMsg: msg}
			continue
		}
		delay := o.tok.mk.delay
		vo := fillmodel.VirtualOrder{ID: o.id, Side: o.side, Price: o.price, Size: o.size, Delay: delay}
		at, err := o.tok.m.Place(vo, now)
		if err != nil {
			res[i] = exchange.PlacementResult{Success: false, ErrorMsg: err.Error()}
			continue
		}
		r.schedule(at)
		// The exchange answers when the order arrives; in a market with a
		// matching delay, before it reaches the book ("delayed").
		if answer := at.Add(-delay); answer.After(latest) {
			latest = answer
		}
		r.orders[o.id] = o
		o.tok.live = append(o.tok.live, o)
		o.tok.acc.OnPlace(now, vo)
		r.quote(o.tok)
		placed[i] = o
		res[i] = exchange.PlacementResult{Success: true, OrderID: o.id}
	}
	if !latest.IsZero() {
		r.advanceTo(latest)
	}
	for i, o := range placed {
		if o == nil {
			continue
		}
		res[i].Status = exchange.PlaceLive
		switch {
		case o.status == statusMatched:
			res[i].Status = exchange.PlaceMatched
		case o.tok.mk.delay > 0:
			res[i].Status = exchange.PlaceDelayed
		}
	}
	return res, nil
}

// CancelOrder implements loop.Venue. It waits for the DELETE /order
// rate buckets, asks the token's Matcher to cancel, and returns once the
// cancel has taken effect (the cancel latency): "canceled" unless the order
// filled completely in the meantime ("not_canceled": already matched).
// Fills until the cancel takes effect still happen.
func (r *Replay) CancelOrder(ctx context.Context, orderID string) (*exchange.CancelResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := r.orders[orderID]
	if o == nil {
		return nil, fmt.Errorf("backtest: cancel %s: %w", orderID, exchange.ErrNotFound)
	}
	if o.status != statusLive {
		return &exchange.CancelResult{Canceled: []string{}, NotCanceled: map[string]string{orderID: "order is " + o.status}}, nil
	}
	if err := r.throttle(r.buckets.del, 1); err != nil {
		return nil, err
	}
	if o.status == statusLive {
		o.tok.acc.OnCancel(r.now)
		if at, err := o.tok.m.Cancel(orderID, r.now); err == nil {
			o.cancelled = true
			r.quote(o.tok)
			r.schedule(at)
			r.advanceTo(at)
		}
	}
	if o.status == statusLive {
		if _, open := o.tok.m.Order(orderID); !open {
			r.finish(o, statusCanceled)
		}
	}
	if o.status == statusCanceled {
		return &exchange.CancelResult{Canceled: []string{orderID}, NotCanceled: map[string]string{}}, nil
	}
	return &exchange.CancelResult{Canceled: []string{}, NotCanceled: map[string]string{orderID: "order is " + o.status}}, nil
}

// Order implements loop.Venue: the order's state as the exchange knows
// it now (final orders are answered for the last few thousand of them):
// the same value while the order does not change, which the caller must
// not write.
func (r *Replay) Order(ctx context.Context, id string) (*exchange.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := r.orders[id]
	if o == nil {
		return nil, fmt.Errorf("backtest: order %s: %w", id, exchange.ErrNotFound)
	}
	return o.view(), nil
}

// Budget implements loop.Venue: what the simulated rate buckets can
// give at now.
func (r *Replay) Budget(now time.Time) exchange.Budget { return r.buckets.budget(now) }

package loop

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// fakeVenue is an in-memory exchange for the loop's tests: books are set by
// the test, orders rest until the test fills or the loop cancels them.
type fakeVenue struct {
	mu       sync.Mutex
	books    map[string]exchange.OrderBook
	orders   map[string]*exchange.Order
	placed   int // orders received
	calls    map[string]int
	placeErr error // returned by PlaceOrders after the orders were accepted ("lost answer")
	refuse   string
	budget   exchange.Budget
}

func newFakeVenue() *fakeVenue {
	return &fakeVenue{books: map[string]exchange.OrderBook{}, orders: map[string]*exchange.Order{}, calls: map[string]int{},
		budget: exchange.Budget{Orders: 1000, Cancels: 1000}}
}

func (v *fakeVenue) setBook(token string, bid, ask string, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.books[token] = exchange.OrderBook{AssetID: token, Timestamp: fmt.Sprint(now.UnixMilli()), TickSize: decimal.RequireFromString("0.01"),
		MinOrderSize: decimal.RequireFromString("5"),
		Bids:         []exchange.PriceLevel{{Price: decimal.RequireFromString(bid), Size: decimal.NewFromInt(100)}},
		Asks:         []exchange.PriceLevel{{Price: decimal.RequireFromString(ask), Size: decimal.NewFromInt(100)}}}
}

func (v *fakeVenue) Books(_ context.Context, ids []string) ([]exchange.OrderBook, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls["books"]++
	var out []exchange.OrderBook
	for _, id := range ids {
		b, ok := v.books[id]
		if !ok {
			return nil, exchange.ErrNotFound
		}
		b.Bids = append([]exchange.PriceLevel(nil), b.Bids...)
		b.Asks = append([]exchange.PriceLevel(nil), b.Asks...)
		out = append(out, b)
	}
	return out, nil
}

func (v *fakeVenue) Trades(context.Context, exchange.TradesParams) ([]exchange.Trade, error) {
	return nil, nil
}

func (v *fakeVenue) PlaceOrders(_ context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls["place"]++
	var res []exchange.PlacementResult
	for _, it := range items {
		id := it.Order.Salt // the fake signer puts the hash there
		if v.refuse != "" {
			res = append(res, exchange.PlacementResult{Success: false, ErrorMsg: v.refuse})
			continue
		}
		if _, dup := v.orders[id]; dup {
			return nil, fmt.Errorf("duplicate order %s", id)
		}
		v.placed++
		price, size := priceSize(it.Order)
		v.orders[id] = &exchange.Order{ID: id, Status: exchange.StatusLive, AssetID: it.Order.TokenID, Side: it.Order.Side,
			Price: price, OriginalSize: size}
		res = append(res, exchange.PlacementResult{Success: true, OrderID: id, Status: exchange.PlaceLive})
	}
	if v.placeErr != nil {
		return nil, v.placeErr
	}
	return res, nil
}

// priceSize recovers price and size from a fake item's amounts (BUY: maker
// is collateral, taker is shares; both in the fake's plain decimals).
func priceSize(o exchange.SignedOrder) (decimal.Decimal, decimal.Decimal) {
	maker, taker := decimal.RequireFromString(o.MakerAmount), decimal.RequireFromString(o.TakerAmount)
	if o.Side == exchange.Buy {
		return maker.Div(taker), taker
	}
	return taker.Div(maker), maker
}

func (v *fakeVenue) CancelOrder(_ context.Context, id string) (*exchange.CancelResult, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls["cancel"]++
	o, ok := v.orders[id]
	if !ok {
		return nil, exchange.ErrNotFound
	}
	if o.Status != exchange.StatusLive {
		return &exchange.CancelResult{NotCanceled: map[string]string{id: "order is " + o.Status}}, nil
	}
	o.Status = exchange.StatusCanceled
	return &exchange.CancelResult{Canceled: []string{id}}, nil
}

func (v *fakeVenue) Order(_ context.Context, id string) (*exchange.Order, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls["order"]++
	o, ok := v.orders[id]
	if !ok {
		return nil, exchange.ErrNotFound
	}
	c := *o
	return &c, nil
}

func (v *fakeVenue) Budget(time.Time) exchange.Budget { return v.budget }

// fillOne fills size of the first live order matching side and token.
func (v *fakeVenue) fill(token string, side exchange.Side, size string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var ids []string
	for id, o := range v.orders {
		if o.AssetID == token && o.Side == side && o.Status == exchange.StatusLive {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return ""
	}
	o := v.orders[ids[0]]
	o.SizeMatched = o.SizeMatched.Add(decimal.RequireFromString(size))
	if o.SizeMatched.GreaterThanOrEqual(o.OriginalSize) {
		o.Status = exchange.StatusMatched
	}
	return ids[0]
}

func (v *fakeVenue) live() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, o := range v.orders {
		if o.Status == exchange.StatusLive {
			n++
		}
	}
	return n
}

// fakeSigner makes deterministic hashes and plain-decimal amounts.
type fakeSigner struct{ n int }

func (s *fakeSigner) SignOrder(m *strategy.Market, o *strategy.Order, t exchange.OrderType) (exchange.PlacementItem, string, error) {
	s.n++
	hash := fmt.Sprintf("0xhash%04d", s.n)
	maker, taker := o.Price.Mul(o.Size), o.Size
	if o.Side == exchange.Sell {
		maker, taker = o.Size, o.Price.Mul(o.Size)
	}
	return exchange.PlacementItem{OrderType: t, Order: exchange.SignedOrder{Salt: hash, TokenID: o.TokenID, ConditionID: m.ConditionID,
		Side: o.Side, MakerAmount: maker.String(), TakerAmount: taker.String()}}, hash, nil
}

// memJournal is an in-memory Journal that enforces write-ahead: an order
// must be an intent before it is marked sent.
type memJournal struct {
	orders      map[string]*JournaledOrder
	fills       map[string]FillRecord
	pos         map[string]decimal.Decimal
	failIntents error
	cursor      time.Time // the trade cursor (Batch.TradeCursor)
	trades      map[string]TradeUpdate
	reversed    int
}

func newMemJournal() *memJournal {
	return &memJournal{orders: map[string]*JournaledOrder{}, fills: map[string]FillRecord{}, pos: map[string]decimal.Decimal{},
		trades: map[string]TradeUpdate{}}
}

func (j *memJournal) RecordIntents(in []Intent, now time.Time) error {
	if j.failIntents != nil {
		return j.failIntents
	}
	for _, i := range in {
		if _, dup := j.orders[i.Hash]; dup {
			return errors.New("intent journaled twice")
		}
		j.orders[i.Hash] = &JournaledOrder{Intent: i, State: JIntent, CreatedAt: now}
	}
	return nil
}

func (j *memJournal) Apply(b *Batch) error {
	for _, h := range b.Sent {
		o, ok := j.orders[h]
		if !ok {
			return fmt.Errorf("sent order %s was never an intent", h)
		}
		if o.State == JIntent {
			o.State = JSent
		}
	}
	for _, h := range b.Revived {
		o, ok := j.orders[h]
		if !ok || o.State != JFailed {
			return fmt.Errorf("revived order %s is not failed", h)
		}
		o.State = JSent
	}
	if !b.TradeCursor.IsZero() {
		j.cursor = b.TradeCursor
	}
	for _, f := range b.Fills {
		id := f.OrderHash + "/" + f.MatchedAfter.String()
		if _, dup := j.fills[id]; dup {
			continue
		}
		j.fills[id] = f
		if f.Side == exchange.Buy {
			j.pos[f.TokenID] = j.pos[f.TokenID].Add(f.Size)
		} else {
			j.pos[f.TokenID] = j.pos[f.TokenID].Sub(f.Size)
		}
	}
	for _, t := range b.Trades {
		prev, found := j.trades[t.Key()]
		if found && (prev.Status == exchange.TradeFailed || prev.Status == exchange.TradeConfirmed) {
			continue
		}
		j.trades[t.Key()] = t
		if t.Status == exchange.TradeFailed {
			j.reversed++
			if t.Side == exchange.Buy {
				j.pos[t.TokenID] = j.pos[t.TokenID].Sub(t.Size)
			} else {
				j.pos[t.TokenID] = j.pos[t.TokenID].Add(t.Size)
			}
		}
	}
	for _, u := range b.Updates {
		o, ok := j.orders[u.Hash]
		if !ok {
			return fmt.Errorf("update of unknown order %s", u.Hash)
		}
		if o.State.Final() && o.State != u.State {
			return fmt.Errorf("order %s: %s after final %s", u.Hash, u.State, o.State)
		}
		o.State, o.SizeMatched = u.State, u.SizeMatched
		if u.ExchangeID != "" {
			o.ExchangeID = u.ExchangeID
		}
	}
	return nil
}

func (j *memJournal) NonFinal() ([]JournaledOrder, error) {
	var out []JournaledOrder
	for _, o := range j.orders {
		if !o.State.Final() {
			out = append(out, *o)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Hash < out[b].Hash })
	return out, nil
}

// Order implements OrderLookup.
func (j *memJournal) Order(hash string) (JournaledOrder, bool, error) {
	o, ok := j.orders[hash]
	if !ok {
		return JournaledOrder{}, false, nil
	}
	return *o, true, nil
}

// TradeCursor implements TradeCursorReader.
func (j *memJournal) TradeCursor() (time.Time, error) { return j.cursor, nil }

func (j *memJournal) Positions() (map[string]decimal.Decimal, error) {
	out := map[string]decimal.Decimal{}
	for k, v := range j.pos {
		out[k] = v
	}
	return out, nil
}

func (j *memJournal) count(st JournalState) int {
	n := 0
	for _, o := range j.orders {
		if o.State == st {
			n++
		}
	}
	return n
}

// fakeFinder lists every order the fake venue has.
type fakeFinder struct{ v *fakeVenue }

func (f fakeFinder) FindOrders(context.Context) ([]string, error) {
	f.v.mu.Lock()
	defer f.v.mu.Unlock()
	var ids []string
	for id := range f.v.orders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// OpenTrades implements SettlementJournal.
func (j *memJournal) OpenTrades() ([]TradeUpdate, error) {
	var out []TradeUpdate
	for _, t := range j.trades {
		if t.Status != exchange.TradeFailed && t.Status != exchange.TradeConfirmed {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key() < out[b].Key() })
	return out, nil
}

// TradeStatus implements SettlementJournal.
func (j *memJournal) TradeStatus(tradeID, orderHash string) (string, bool, error) {
	t, ok := j.trades[(&TradeUpdate{TradeID: tradeID, OrderHash: orderHash}).Key()]
	return t.Status, ok, nil
}

package assemble

import (
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Journal adapts the bbolt store to the loop's Journal (and to its
// optional OrderLookup and TradeCursorReader).
type Journal struct{ Store *state.Store }

var _ loop.Journal = Journal{}

func (j Journal) RecordIntents(in []loop.Intent, now time.Time) error {
	return j.Store.Update(func(tx *state.Tx) error {
		for i := range in {
			it := &in[i]
			if err := tx.PutIntent(state.Order{Hash: it.Hash, ConditionID: it.ConditionID, TokenID: it.TokenID, Outcome: int(it.Outcome),
				Side: it.Side, Price: it.Price, Size: it.Size, OrderType: it.OrderType, State: state.Intent, Item: it.Item,
				Salt: it.Item.Order.Salt, CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Apply writes one batch in one transaction. Each order is decoded and
// encoded once per change: an intent moves straight to the state the
// exchange answered (Intent → Live is a legal transition), and only the
// intents handed over without an answer are marked sent.
func (j Journal) Apply(b *loop.Batch) error {
	answered := make(map[string]bool, len(b.Updates))
	for i := range b.Updates {
		answered[b.Updates[i].Hash] = true
	}
	return j.Store.Update(func(tx *state.Tx) error {
		for _, h := range b.Sent {
			if answered[h] {
				continue
			}
			if err := tx.MarkSent(h, b.Now); err != nil {
				return err
			}
		}
		if err := applyHistory(tx, b); err != nil {
			return err
		}
		for _, f := range b.Fills {
			if _, err := tx.AddFill(state.Fill{ID: state.DerivedFillID(f.OrderHash, f.MatchedAfter), OrderHash: f.OrderHash,
				ConditionID: f.ConditionID, TokenID: f.TokenID, Side: f.Side, Price: f.Price, Size: f.Size, Time: f.Time}); err != nil {
				return err
			}
		}
		for _, u := range b.Updates {
			err := tx.ApplyResult(u.Hash, u.ExchangeID, state.OrderState(u.State), u.SizeMatched, u.Err, b.Now)
			if err == nil {
				continue
			}
			if errors.Is(err, state.ErrIllegalTransition) {
				if o, gerr := tx.Order(u.Hash); gerr == nil && o.State.Final() {
					continue // already final: a late duplicate answer
				}
			}
			return err
		}
		return applyTrades(tx, b)
	})
}

func (j Journal) NonFinal() ([]loop.JournaledOrder, error) {
	orders, err := j.Store.NonFinalOrders()
	if err != nil {
		return nil, err
	}
	out := make([]loop.JournaledOrder, 0, len(orders))
	for i := range orders {
		o := &orders[i]
		out = append(out, loop.JournaledOrder{
			Intent: loop.Intent{Hash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID, Outcome: strategy.Outcome(o.Outcome),
				Side: o.Side, Price: o.Price, Size: o.Size, OrderType: o.OrderType, Item: o.Item},
			ExchangeID: o.ExchangeID, State: loop.JournalState(o.State), SizeMatched: o.SizeMatched, CreatedAt: o.CreatedAt,
		})
	}
	return out, nil
}

func (j Journal) Positions() (map[string]decimal.Decimal, error) {
	ps, err := j.Store.Positions()
	if err != nil {
		return nil, err
	}
	out := make(map[string]decimal.Decimal, len(ps))
	for _, p := range ps {
		out[p.TokenID] = p.Shares
	}
	return out, nil
}

// applyHistory writes what a batch learned from the trade history, before
// its updates: revived orders back to sent (their answer then applies), and
// the history's cursor.
func applyHistory(tx *state.Tx, b *loop.Batch) error {
	for _, h := range b.Revived {
		if err := tx.Revive(h, b.Now); err != nil {
			return err
		}
	}
	if !b.TradeCursor.IsZero() {
		return tx.PutTradeCursor(b.TradeCursor)
	}
	return nil
}

var (
	_ loop.OrderLookup       = Journal{}
	_ loop.TradeCursorReader = Journal{}
)

// Order implements loop.OrderLookup: one journaled order, final ones too.
func (j Journal) Order(hash string) (loop.JournaledOrder, bool, error) {
	o, err := j.Store.Order(hash)
	if errors.Is(err, state.ErrNotFound) {
		if o, err = j.Store.OrderByExchangeID(hash); errors.Is(err, state.ErrNotFound) {
			return loop.JournaledOrder{}, false, nil
		}
	}
	if err != nil {
		return loop.JournaledOrder{}, false, fmt.Errorf("journal: order %s: %w", hash, err)
	}
	return loop.JournaledOrder{
		Intent: loop.Intent{Hash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID, Outcome: strategy.Outcome(o.Outcome),
			Side: o.Side, Price: o.Price, Size: o.Size, OrderType: o.OrderType, Item: o.Item},
		ExchangeID: o.ExchangeID, State: loop.JournalState(o.State), SizeMatched: o.SizeMatched, CreatedAt: o.CreatedAt,
	}, true, nil
}

// TradeCursor implements loop.TradeCursorReader.
func (j Journal) TradeCursor() (t time.Time, err error) {
	err = j.Store.View(func(tx *state.Tx) error { t, err = tx.TradeCursor(); return err })
	return t, err
}

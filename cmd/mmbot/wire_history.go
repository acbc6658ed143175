package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// builderHistory is the loop's trade history (loop.TradeHistory): GET
// /builder/trades for the account's maker address. It is the order-book
// API's only read that names the account's orders by id, so a trade there
// is evidence that one of them filled (see docs/protocol.md for why not
// the data API's /trades). It lists only the trades of orders carrying a
// builder code (account.builder_code): without one the daemon runs without
// a history and finds fills by reading its orders back.
type builderHistory struct {
	c     *exchange.Client
	maker string
	max   int // trades read at most per call (newest first): the read stays one or a few pages
}

var _ loop.TradeHistory = builderHistory{}

// historyMaxTrades bounds one history read: 20 pages of 100. A cycle's read
// covers a few seconds of trades; the first read after a restart with no
// cursor takes the newest ones.
const historyMaxTrades = 2000

// hasBuilderCode reports whether code is a builder code that is not zero.
func hasBuilderCode(code string) bool {
	return strings.Trim(strings.TrimPrefix(strings.ToLower(code), "0x"), "0") != ""
}

// OwnTrades reads the trades after since (Unix seconds, strictly after:
// the second of since itself is read again; the loop drops what it took),
// newest first, page by page until max trades. A MAKER trade names our
// resting order among its maker orders; a TAKER trade names ours as its
// taker order (and possibly ours among the makers too).
func (h builderHistory) OwnTrades(ctx context.Context, since time.Time) ([]loop.OwnTrade, error) {
	p := exchange.BuilderTradesParams{MakerAddress: h.maker}
	if !since.IsZero() {
		p.After = exchange.Ptr(max(since.Unix()-1, 0))
	}
	var out []loop.OwnTrade
	n := 0
	for t, err := range h.c.AllBuilderTrades(ctx, p) {
		if err != nil {
			return out, err
		}
		out = h.ownTrades(&t, out)
		if n++; n >= h.max {
			break
		}
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
	_ loop.OrderLookup       = journal{}
	_ loop.TradeCursorReader = journal{}
)

// Order implements loop.OrderLookup: one journaled order, final ones too.
func (j journal) Order(hash string) (loop.JournaledOrder, bool, error) {
	o, err := j.st.Order(hash)
	if errors.Is(err, state.ErrNotFound) {
		if o, err = j.st.OrderByExchangeID(hash); errors.Is(err, state.ErrNotFound) {
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
func (j journal) TradeCursor() (t time.Time, err error) {
	err = j.st.View(func(tx *state.Tx) error { t, err = tx.TradeCursor(); return err })
	return t, err
}

// The crash-point wrappers (a test hook) pass the optional parts on.

func (j *crashJournal) Order(hash string) (loop.JournaledOrder, bool, error) {
	if lk, ok := j.Journal.(loop.OrderLookup); ok {
		return lk.Order(hash)
	}
	return loop.JournaledOrder{}, false, nil
}

func (j *crashJournal) TradeCursor() (time.Time, error) {
	if cr, ok := j.Journal.(loop.TradeCursorReader); ok {
		return cr.TradeCursor()
	}
	return time.Time{}, nil
}

func (v *crashVenue) ReadBudget(now time.Time) int {
	if rb, ok := v.Venue.(loop.ReadBudgeter); ok {
		return rb.ReadBudget(now)
	}
	return 1 << 30
}

package ledger_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

// t0 is the clock origin of the test journal.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// Two markets: the first with its YES and NO tokens, the second with YES.
var (
	cond1 = "0xc0ffee" + strings.Repeat("0", 54) + "0001"
	cond2 = "0xbeef00" + strings.Repeat("0", 54) + "0002"
	yes1  = "1" + strings.Repeat("1", 76)
	no1   = "2" + strings.Repeat("2", 76)
	yes2  = "3" + strings.Repeat("3", 76)
)

// journalBuilder writes orders and fills through package state's API.
type journalBuilder struct {
	t *testing.T
	s *state.Store
	n int
}

// order journals an intent and, unless st is Intent, the exchange's answer
// at the same minute; it returns the order.
func (b *journalBuilder) order(tok, cond string, outcome int, side exchange.Side, price, size string, minute int, st state.OrderState) state.Order {
	b.t.Helper()
	b.n++
	o := state.Order{Hash: fmt.Sprintf("0x%064x", b.n), ConditionID: cond, TokenID: tok, Outcome: outcome, Side: side,
		Price: dec(price), Size: dec(size), OrderType: exchange.GTC, Salt: fmt.Sprint(b.n), CreatedAt: at(minute)}
	b.update(func(tx *state.Tx) error {
		if err := tx.PutIntent(o); err != nil {
			return err
		}
		if st == state.Intent {
			return nil
		}
		return tx.ApplyResult(o.Hash, fmt.Sprintf("x-%d", b.n), st, decimal.Zero, "", at(minute))
	})
	return o
}

// fill books a fill of o and moves o to st with matched shares matched.
func (b *journalBuilder) fill(o state.Order, price, size, fee string, minute int, st state.OrderState, matched string) {
	b.t.Helper()
	b.update(func(tx *state.Tx) error {
		_, err := tx.AddFill(state.Fill{ID: fmt.Sprintf("trade-%d-%d", b.n, minute), OrderHash: o.Hash, ConditionID: o.ConditionID,
			TokenID: o.TokenID, Side: o.Side, Price: dec(price), Size: dec(size), Fee: dec(fee), Time: at(minute)})
		if err != nil {
			return err
		}
		return tx.ApplyResult(o.Hash, "", st, dec(matched), "", at(minute))
	})
}

func (b *journalBuilder) cancel(o state.Order, minute int) {
	b.t.Helper()
	b.update(func(tx *state.Tx) error { return tx.SetState(o.Hash, state.Canceled, at(minute)) })
}

func (b *journalBuilder) update(fn func(tx *state.Tx) error) {
	b.t.Helper()
	if err := b.s.Update(fn); err != nil {
		b.t.Fatal(err)
	}
}

// testJournal writes the test journal and returns its path and the writer,
// still open (closed at cleanup):
//
//	minute  order / fill
//	 1      o1 BUY  YES1 10 @0.40 sent          fill 10 @0.40 fee 0.02 at 2
//	 3      o2 SELL YES1 10 @0.46 sent          fills 6 @0.46 fee 0.01 at 5, 4 @0.47 at 7
//	 4      o3 BUY  NO1  20 @0.55 sent          fill 12 @0.55 at 8, canceled at 20
//	 6      o4 BUY  YES1 10 @0.38 sent          canceled at 15
//	 9      o5 BUY  YES2  5 @0.30 sent          fill 5 @0.30 at 10
//	11      o6 BUY  YES2  5 @0.34 sent          fill 5 @0.34 at 12
//	25      o7 an intent never sent; 26 o8 failed
func testJournal(t *testing.T) (string, *state.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mmbot.db")
	s, err := state.Open(path, state.Options{Account: "0xabc", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Check(); err != nil {
			t.Errorf("journal check: %v", err)
		}
		_ = s.Close()
	})
	b := &journalBuilder{t: t, s: s}
	o1 := b.order(yes1, cond1, 0, exchange.Buy, "0.40", "10", 1, state.Live)
	b.fill(o1, "0.40", "10", "0.02", 2, state.Filled, "10")
	o2 := b.order(yes1, cond1, 0, exchange.Sell, "0.46", "10", 3, state.Live)
	o3 := b.order(no1, cond1, 1, exchange.Buy, "0.55", "20", 4, state.Live)
	b.fill(o2, "0.46", "6", "0.01", 5, state.PartiallyFilled, "6")
	o4 := b.order(yes1, cond1, 0, exchange.Buy, "0.38", "10", 6, state.Live)
	b.fill(o2, "0.47", "4", "0", 7, state.Filled, "10")
	b.fill(o3, "0.55", "12", "0", 8, state.PartiallyFilled, "12")
	o5 := b.order(yes2, cond2, 0, exchange.Buy, "0.30", "5", 9, state.Live)
	b.fill(o5, "0.30", "5", "0", 10, state.Filled, "5")
	o6 := b.order(yes2, cond2, 0, exchange.Buy, "0.34", "5", 11, state.Live)
	b.fill(o6, "0.34", "5", "0", 12, state.Filled, "5")
	b.cancel(o4, 15)
	b.cancel(o3, 20)
	b.order(yes1, cond1, 0, exchange.Buy, "0.41", "10", 25, state.Intent)
	b.order(no1, cond1, 1, exchange.Buy, "0.50", "10", 26, state.Failed)
	return path, s
}

// readOnly opens path as mmbot orders does, while the writer holds it.
func readOnly(t *testing.T, path string) *state.Store {
	t.Helper()
	s, err := state.Open(path, state.Options{ReadOnly: true, LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

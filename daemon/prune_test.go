package daemon

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

// The pruner removes, in batches, the final orders with nothing matched
// that are past the retention, and keeps those within it and every order
// with a fill.
func TestPrunerPass(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mmbot.db")
	writeJournal(t, path, 300) // a minute apart from journalT0; every tenth filled
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := journalT0.Add(300*time.Minute + time.Hour)
	p := &pruner{store: st, retention: 2 * time.Hour, batch: 40, now: func() time.Time { return now }, log: zerolog.Nop(),
		quit: make(chan struct{}), done: make(chan struct{})}
	// Final before now - 2h: the orders of minutes 0..239 (canceled ones:
	// 216 of them).
	n, err := p.pass()
	if err != nil || n != 216 {
		t.Fatalf("pass pruned %d (%v), want 216", n, err)
	}
	orders, _ := st.Orders(state.OrderFilter{})
	if len(orders) != 300-216 {
		t.Fatalf("%d orders left, want %d", len(orders), 300-216)
	}
	if fills, _ := st.Fills(time.Time{}); len(fills) != 30 {
		t.Fatalf("%d fills left, want 30", len(fills))
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}

// A zero retention keeps everything and starts nothing; a started pruner
// stops when asked.
func TestPrunerStartStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mmbot.db")
	writeJournal(t, path, 10)
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	far := func() time.Time { return journalT0.Add(1000 * time.Hour) }
	startPruner(st, 0, 100, far, zerolog.Nop()).stop()
	if orders, _ := st.Orders(state.OrderFilter{}); len(orders) != 10 {
		t.Fatalf("retention 0 pruned: %d orders left", len(orders))
	}
	p := startPruner(st, time.Hour, 100, far, zerolog.Nop())
	p.stop()
	p.stop() // twice is fine
}

var journalT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// writeJournal makes a journal of n orders, one a minute from journalT0:
// every tenth filled (with its fill), the others canceled with nothing
// matched.
func writeJournal(t *testing.T, path string, n int) {
	t.Helper()
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Update(func(tx *state.Tx) error {
		for i := range n {
			at := journalT0.Add(time.Duration(i) * time.Minute)
			o := state.Order{Hash: fmt.Sprintf("0x%064x", i+1), ConditionID: "0xc0", TokenID: "1234", Side: exchange.Buy,
				Price: decimal.RequireFromString("0.45"), Size: decimal.RequireFromString("10"), OrderType: exchange.GTC,
				Item: exchange.PlacementItem{Order: exchange.SignedOrder{Salt: fmt.Sprint(i), Signature: "0xab"}}, CreatedAt: at}
			if err := tx.PutIntent(o); err != nil {
				return err
			}
			if err := tx.ApplyResult(o.Hash, o.Hash, state.Live, decimal.Zero, "", at); err != nil {
				return err
			}
			if i%10 != 0 {
				if err := tx.ApplyResult(o.Hash, "", state.Canceled, decimal.Zero, "", at.Add(time.Second)); err != nil {
					return err
				}
				continue
			}
			f := state.Fill{ID: fmt.Sprint("trade-", i), OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID,
				Side: o.Side, Price: o.Price, Size: o.Size, Fee: decimal.Zero, Time: at.Add(time.Second)}
			if _, err := tx.AddFill(f); err != nil {
				return err
			}
			if err := tx.ApplyResult(o.Hash, "", state.Filled, o.Size, "", at.Add(time.Second)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

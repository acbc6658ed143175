package state

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// FuzzJournalOps applies an arbitrary sequence of journal operations to a
// fresh store, each in its own Update. Whatever the operations, a failed
// Update changes nothing, every state change that succeeds is one that
// CanTransition allows, and Check passes at the end. The seeds follow the
// life-cycle table of TestLifeCycle.
func FuzzJournalOps(f *testing.F) {
	// op bytes: kind, order (0..3), arg
	f.Add([]byte{0, 0, 0, 1, 0, 0, 2, 0, 2, 2, 0, 3, 4, 0, 3, 2, 0, 4})   // intent, sent, live, partial, fill, filled
	f.Add([]byte{0, 1, 0, 2, 1, 6, 3, 1, 2})                              // intent, failed, then live (illegal)
	f.Add([]byte{0, 2, 0, 2, 2, 2, 4, 2, 9, 4, 2, 9, 5, 2, 0, 3, 2, 5})   // fills twice, rollback, canceled
	f.Add([]byte{0, 3, 0, 4, 3, 200, 2, 3, 3, 2, 3, 1, 1, 3, 0, 0, 3, 0}) // oversell, shrink, duplicate intent
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 300 {
			return
		}
		s, err := Open(filepath.Join(t.TempDir(), "f.db"), Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		states := AllStates()
		for i := 0; i+3 <= len(ops); i += 3 {
			kind, n, arg := ops[i]%6, int(ops[i+1]%4), ops[i+2]
			o := testOrder(n+1, fmt.Sprint("tok", n%2), exchange.Buy)
			before, _ := s.Orders(OrderFilter{})
			beforeFills, _ := s.Fills(t0.AddDate(-1, 0, 0))
			now := t0.Add(1e9 * 60)
			var target OrderState
			err := s.Update(func(tx *Tx) error {
				switch kind {
				case 0:
					return tx.PutIntent(o)
				case 1:
					target = Sent
					return tx.MarkSent(o.Hash, now)
				case 2:
					target = states[int(arg)%len(states)]
					return tx.ApplyResult(o.Hash, fmt.Sprint("X", n), target, decimal.New(int64(arg/8), 0), "", now)
				case 3:
					target = states[int(arg)%len(states)]
					return tx.SetState(o.Hash, target, now)
				case 4:
					fl := testFillFor(o, int(arg))
					if arg >= 128 {
						fl.Side, fl.External, fl.OrderHash = exchange.Sell, true, ""
					}
					_, err := tx.AddFill(fl)
					return err
				default:
					if err := tx.PutIntent(o); err != nil {
						return err
					}
					return fmt.Errorf("rolled back")
				}
			})
			after, _ := s.Orders(OrderFilter{})
			afterFills, _ := s.Fills(t0.AddDate(-1, 0, 0))
			if err != nil {
				if !reflect.DeepEqual(before, after) || len(beforeFills) != len(afterFills) {
					t.Fatalf("op %d (%d on order %d) failed with %v but changed the journal", i/3, kind, n, err)
				}
				continue
			}
			if kind == 1 || kind == 2 || kind == 3 {
				prev := stateOf(before, o.Hash)
				if !CanTransition(prev, target) || stateOf(after, o.Hash) != target {
					t.Fatalf("op %d: %s -> %s accepted, now %s", i/3, prev, target, stateOf(after, o.Hash))
				}
			}
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	})
}

func stateOf(orders []Order, hash string) OrderState {
	for _, o := range orders {
		if o.Hash == hash {
			return o.State
		}
	}
	return ""
}

func testFillFor(o Order, arg int) Fill {
	return Fill{
		ID: fmt.Sprint("t", arg%16), OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID,
		Side: o.Side, Price: d("0.45"), Size: decimal.New(int64(arg%7+1), 0), Fee: decimal.Zero, Time: t0,
	}
}

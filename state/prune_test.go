package state

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// Prune removes only final orders with nothing matched, oldest first, in
// batches; a fill that arrives for a canceled order before it is pruned
// keeps it for good.
func TestPrune(t *testing.T) {
	s := newTestStore(t, Options{})
	var hashes []string
	mustUpdate(t, s, func(tx *Tx) error {
		for i := range 6 {
			o := testOrder(i+1, "tokA", exchange.Buy)
			hashes = append(hashes, o.Hash)
			if err := tx.PutIntent(o); err != nil {
				return err
			}
			at := t0.Add(time.Duration(i) * time.Minute)
			switch i {
			case 0, 1, 2: // canceled, nothing matched
				if err := tx.ApplyResult(o.Hash, o.Hash, Canceled, decimal.Zero, "", at); err != nil {
					return err
				}
			case 3: // filled
				if err := tx.ApplyResult(o.Hash, o.Hash, Filled, o.Size, "", at); err != nil {
					return err
				}
			case 4: // still live
				if err := tx.ApplyResult(o.Hash, o.Hash, Live, decimal.Zero, "", at); err != nil {
					return err
				}
			case 5: // failed
				if err := tx.ApplyResult(o.Hash, "", Failed, decimal.Zero, "rejected", at); err != nil {
					return err
				}
			}
		}
		// A late fill of the second canceled order: it stays.
		o, err := tx.Order(hashes[1])
		if err != nil {
			return err
		}
		_, err = tx.AddFill(testFill("late", o, "1", "0.45", t0.Add(time.Hour)))
		return err
	})
	// Only the first canceled order is old enough; one at a time.
	n, more, err := s.Prune(t0.Add(30*time.Second), 1)
	if err != nil || n != 1 || more {
		t.Fatalf("Prune = %d %v %v, want 1 and no more", n, more, err)
	}
	n, more, err = s.Prune(t0.Add(time.Hour), 1)
	if err != nil || n != 1 || !more {
		t.Fatalf("Prune = %d %v %v, want 1 and more", n, more, err)
	}
	n, more, err = s.Prune(t0.Add(time.Hour), 10)
	if err != nil || n != 1 || more {
		t.Fatalf("Prune = %d %v %v, want 1 and no more", n, more, err)
	}
	for i, want := range []bool{false, true, false, true, true, false} {
		_, err := s.Order(hashes[i])
		if got := err == nil; got != want || (err != nil && !errors.Is(err, ErrNotFound)) {
			t.Errorf("order %d: present %v (%v), want %v", i, got, err, want)
		}
	}
	if _, _, err := s.Prune(t0, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("batch 0: %v", err)
	}
	o, err := s.Order(hashes[1])
	if err != nil || o.State != Canceled || (o.Item != exchange.PlacementItem{}) {
		t.Errorf("the canceled order with a fill: %+v %v", o, err)
	}
}

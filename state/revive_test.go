package state

import (
	"errors"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// A failed order that reached the exchange after all goes back to sent,
// then takes the exchange's answer and its fills; other final states stay.
func TestReviveFailedOrder(t *testing.T) {
	s := newTestStore(t, Options{})
	failed, canceled := testOrder(1, "tok", exchange.Buy), testOrder(2, "tok", exchange.Buy)
	now := t0.Add(time.Minute)
	mustUpdate(t, s, func(tx *Tx) error {
		for _, o := range []Order{failed, canceled} {
			if err := tx.PutIntent(o); err != nil {
				return err
			}
		}
		if err := tx.SetState(failed.Hash, Failed, now); err != nil {
			return err
		}
		return tx.SetState(canceled.Hash, Canceled, now)
	})
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.Revive(failed.Hash, now); err != nil {
			return err
		}
		if err := tx.Revive(failed.Hash, now); err != nil { // open already: nothing to do
			return err
		}
		if _, err := tx.AddFill(Fill{ID: DerivedFillID(failed.Hash, d("4")), OrderHash: failed.Hash, ConditionID: "0xcond", TokenID: "tok",
			Side: exchange.Buy, Price: d("0.45"), Size: d("4"), Time: now}); err != nil {
			return err
		}
		return tx.ApplyResult(failed.Hash, failed.Hash, PartiallyFilled, d("4"), "", now)
	})
	o, err := s.Order(failed.Hash)
	if err != nil || o.State != PartiallyFilled || !o.SizeMatched.Equal(d("4")) {
		t.Fatalf("revived order: %+v, %v", o, err)
	}
	err = s.Update(func(tx *Tx) error { return tx.Revive(canceled.Hash, now) })
	if !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("reviving a cancelled order: %v, want ErrIllegalTransition", err)
	}
}

func TestTradeCursorRoundTrip(t *testing.T) {
	s := newTestStore(t, Options{})
	var got time.Time
	if err := s.View(func(tx *Tx) (err error) { got, err = tx.TradeCursor(); return err }); err != nil || !got.IsZero() {
		t.Fatalf("empty journal's cursor %s, %v", got, err)
	}
	at := time.Date(2026, 11, 25, 1, 2, 3, 456789000, time.UTC)
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutTradeCursor(at) })
	if err := s.View(func(tx *Tx) (err error) { got, err = tx.TradeCursor(); return err }); err != nil || !got.Equal(at) {
		t.Fatalf("cursor %s, %v; want %s", got, err, at)
	}
}

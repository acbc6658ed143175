package state

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// TestOpenCacheAgreesWithFile: an open order read inside an Update (from
// the cache: this transaction's writes, then the committed ones) is the
// record a View decodes from the file, through every change, including one
// a rolled-back transaction made, and times given with a zone and a
// monotonic reading.
func TestOpenCacheAgreesWithFile(t *testing.T) {
	s := newTestStore(t, Options{})
	o := testOrder(1, "tokA", exchange.Buy)
	o.CreatedAt = time.Now().In(time.FixedZone("X", 3600)) // monotonic reading and a zone
	same := func(step string) {
		t.Helper()
		var fromCache, fromFile *Order
		mustUpdate(t, s, func(tx *Tx) (err error) { fromCache, err = tx.getOrder(o.Hash); return err })
		_ = s.View(func(tx *Tx) (err error) { fromFile, err = tx.getOrder(o.Hash); return err })
		if !reflect.DeepEqual(fromCache.CreatedAt, fromFile.CreatedAt) || !reflect.DeepEqual(fromCache.UpdatedAt, fromFile.UpdatedAt) ||
			!reflect.DeepEqual(fromCache.SentAt, fromFile.SentAt) {
			t.Fatalf("%s: times in the cache %v %v %v, in the file %v %v %v", step, fromCache.CreatedAt, fromCache.SentAt, fromCache.UpdatedAt,
				fromFile.CreatedAt, fromFile.SentAt, fromFile.UpdatedAt)
		}
		if fromCache.State != fromFile.State || !fromCache.SizeMatched.Equal(fromFile.SizeMatched) || fromCache.ExchangeID != fromFile.ExchangeID ||
			!reflect.DeepEqual(fromCache.Item, fromFile.Item) || fromCache.LastError != fromFile.LastError {
			t.Fatalf("%s: cache %+v, file %+v", step, *fromCache, *fromFile)
		}
	}
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(o) })
	same("intent")
	now := o.CreatedAt.Add(1500 * time.Millisecond)
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.MarkSent(o.Hash, now); err != nil {
			return err
		}
		// A second change in the same transaction starts from the first.
		return tx.ApplyResult(o.Hash, o.Hash, Live, decimal.Zero, "", now.Add(time.Millisecond))
	})
	same("live")
	boom := errors.New("boom")
	err := s.Update(func(tx *Tx) error {
		if err := tx.ApplyResult(o.Hash, "", Canceled, decimal.Zero, "", now.Add(time.Second)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	same("after a rollback")
	mustUpdate(t, s, func(tx *Tx) error {
		got, err := tx.Order(o.Hash)
		if err != nil || got.State != Live {
			t.Fatalf("after the rollback: %v, %v; want live", got.State, err)
		}
		return tx.ApplyResult(o.Hash, "", PartiallyFilled, d("4"), "", now.Add(2*time.Second))
	})
	same("partially filled")
	mustUpdate(t, s, func(tx *Tx) error {
		return tx.ApplyResult(o.Hash, "", Canceled, d("4"), "", now.Add(3*time.Second))
	})
	same("cancelled")
	if _, ok := s.open.get(o.Hash); ok {
		t.Fatal("a final order stays in the open cache")
	}
}

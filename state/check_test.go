package state

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
)

// Check must notice each kind of damage. Each case builds a healthy journal,
// damages it behind the store's back with raw bbolt writes, and expects
// Check to name the problem; the damage is then undone so that the cleanup
// Check passes.
func TestCheckFindsDamage(t *testing.T) {
	o := testOrder(1, "tokA", exchange.Buy)
	cases := []struct {
		name   string
		damage func(btx *bolt.Tx) error
		want   string
	}{
		{"open order in the wrong bucket", func(btx *bolt.Tx) error {
			v := btx.Bucket(bucketOrdersOpen).Get(seqKey(1))
			if err := btx.Bucket(bucketOrdersOpen).Delete(seqKey(1)); err != nil {
				return err
			}
			return btx.Bucket(bucketOrdersKept).Put(seqKey(1), v)
		}, "stored in orders_kept"},
		{"signed item missing", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrderItems).Delete(seqKey(1))
		}, "signed item stored false"},
		{"dangling prune queue entry", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketPruneQueue).Put(doneKey(t0, 1), []byte{})
		}, "prune queue key"},
		{"item of a final order", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrderItems).Put(seqKey(99), []byte("{}"))
		}, "names no order that needs one"},
		{"exchange id index wrong", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrdersByXID).Put([]byte("X1"), []byte("0xghost"))
		}, "exchange id X1 indexed to"},
		{"order under wrong key", func(btx *bolt.Tx) error {
			v := btx.Bucket(bucketOrdersOpen).Get(seqKey(1))
			return btx.Bucket(bucketOrdersOpen).Put(seqKey(7), v)
		}, "missing from the hash index"},
		{"position tampered", func(btx *bolt.Tx) error {
			var p Position
			_ = json.Unmarshal(btx.Bucket(bucketPositions).Get([]byte("tokA")), &p)
			p.Shares = p.Shares.Add(d("1"))
			v, _ := json.Marshal(p)
			return btx.Bucket(bucketPositions).Put([]byte("tokA"), v)
		}, "its fills fold to"},
		{"position without fills", func(btx *bolt.Tx) error {
			v, _ := json.Marshal(Position{TokenID: "tokZ"})
			return btx.Bucket(bucketPositions).Put([]byte("tokZ"), v)
		}, "has no fills"},
		{"fill of unknown order", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrderHashes).Delete(hashKey(o.Hash, 1))
		}, "is not external"},
		{"fill time index missing", func(btx *bolt.Tx) error {
			c := btx.Bucket(bucketFillsByTime).Cursor()
			k, _ := c.First()
			return btx.Bucket(bucketFillsByTime).Delete(k)
		}, "missing from the time index"},
		{"wrong schema", func(btx *bolt.Tx) error { return putSchemaVersion(btx, 7) }, "schema version 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestStore(t, Options{})
			mustUpdate(t, s, func(tx *Tx) error {
				if err := tx.PutIntent(o); err != nil {
					return err
				}
				if err := tx.ApplyResult(o.Hash, "X1", PartiallyFilled, d("3"), "", t0); err != nil {
					return err
				}
				_, err := tx.AddFill(testFill("f1", o, "3", "0.45", t0))
				return err
			})
			if err := s.Check(); err != nil {
				t.Fatalf("healthy journal: %v", err)
			}
			// Damage it in a transaction that is rolled back after Check ran
			// inside it, so the file stays healthy for the cleanup Check.
			errRollback := errors.New("rollback")
			err := s.db.Update(func(btx *bolt.Tx) error {
				if err := c.damage(btx); err != nil {
					return err
				}
				err := (&Tx{btx: btx}).Check()
				if !errors.Is(err, ErrInconsistent) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("Check = %v, want ErrInconsistent mentioning %q", err, c.want)
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatal(err)
			}
		})
	}
}

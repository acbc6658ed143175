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
		{"state index entry missing", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrdersByState).Delete(stateKey(PartiallyFilled, 1))
		}, "state index entry wrong"},
		{"stale state index entry", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrdersByState).Put(stateKey(Live, 1), []byte{})
		}, "which is partially_filled"},
		{"dangling state index entry", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrdersByState).Put(stateKey(Live, 99), []byte{})
		}, "names order seq 99"},
		{"dangling prune queue entry", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrdersDone).Put(doneKey(t0, 1), []byte{})
		}, "prune queue key"},
		{"item of a final order", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrderItems).Put(seqKey(99), []byte("{}"))
		}, "names no order"},
		{"exchange id index wrong", func(btx *bolt.Tx) error {
			return btx.Bucket(bucketOrdersByXID).Put([]byte("X1"), []byte("0xghost"))
		}, "exchange id X1 indexed to"},
		{"order under wrong key", func(btx *bolt.Tx) error {
			v := btx.Bucket(bucketOrders).Get(seqKey(1))
			return btx.Bucket(bucketOrders).Put(seqKey(7), v)
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

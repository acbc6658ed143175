package state

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
)

// fileHolds reports whether the journal file's bytes contain s anywhere
// (live pages or free ones).
func fileHolds(t *testing.T, path, s string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte(s))
}

// TestOwnerNeverStored: the placement item's owner is the API key, a
// secret; no write path puts it in the journal.
func TestOwnerNeverStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{Account: "0xacc"})
	if err != nil {
		t.Fatal(err)
	}
	o := testOrder(1, "tokA", exchange.Buy)
	o.Item.Owner = "secret-api-key-7f3a"
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(o) })
	mustUpdate(t, s, func(tx *Tx) error { return tx.MarkSent(o.Hash, t0) })
	got, err := s.Order(o.Hash)
	if err != nil || got.Item.Owner != "" || got.Item.Order.Signature != o.Item.Order.Signature {
		t.Fatalf("stored item %+v (%v)", got.Item, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fileHolds(t, path, "secret-api-key-7f3a") {
		t.Error("the API key is in the journal file")
	}
}

// TestMigrateV1DropsOwner: a schema-1 journal, whose orders carry the API
// key, loses it when a writer opens it; the orders are otherwise intact.
func TestMigrateV1DropsOwner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{Account: "0xacc"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := testOrder(1, "tokA", exchange.Buy), testOrder(2, "tokB", exchange.Sell)
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.PutIntent(a); err != nil {
			return err
		}
		return tx.PutIntent(b)
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Make it what version 1 wrote: the owner in every order.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(btx *bolt.Tx) error {
		for _, o := range []Order{a, b} {
			o.State, o.UpdatedAt = Intent, o.CreatedAt
			o.Item.Owner = "secret-api-key-7f3a"
			raw, err := json.Marshal(&o)
			if err != nil {
				return err
			}
			if err := btx.Bucket(bucketOrders).Put([]byte(o.Hash), raw); err != nil {
				return err
			}
		}
		return putSchemaVersion(btx, 1)
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	s, err = Open(path, Options{Account: "0xacc"})
	if err != nil {
		t.Fatalf("Open v1: %v", err)
	}
	if hasMeta, v := rawSchemaOf(t, s); !hasMeta || v != "2" {
		t.Errorf("schema after migration %q", v)
	}
	for _, o := range []Order{a, b} {
		got, err := s.Order(o.Hash)
		if err != nil || got.Item.Owner != "" || got.Item.Order != o.Item.Order || !got.Price.Equal(o.Price) {
			t.Errorf("order %s after migration: %+v (%v)", o.Hash, got, err)
		}
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

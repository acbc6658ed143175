package state

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

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
	a, b := testOrder(1, "tokA", exchange.Buy), testOrder(2, "tokB", exchange.Sell)
	var v1 []Order // what version 1 wrote: the owner in every order
	for _, o := range []Order{a, b} {
		o.State, o.UpdatedAt = Intent, o.CreatedAt
		o.Item.Owner = "secret-api-key-7f3a"
		v1 = append(v1, o)
	}
	writeV2(t, path, 1, v1, nil)

	s, err := Open(path, Options{Account: "0xacc"})
	if err != nil {
		t.Fatalf("Open v1: %v", err)
	}
	if hasMeta, v := rawSchemaOf(t, s); !hasMeta || v != strconv.Itoa(SchemaVersion) {
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

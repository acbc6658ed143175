package state

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
)

// writeV0 hand-makes a schema-0 journal: one "orders" bucket of hash → JSON,
// no meta, no indexes, no fills or positions.
func writeV0(t *testing.T, path string, orders []Order, raw map[string]string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(btx *bolt.Tx) error {
		b, err := btx.CreateBucket([]byte("orders"))
		if err != nil {
			return err
		}
		for _, o := range orders {
			v, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(o.Hash), v); err != nil {
				return err
			}
		}
		for k, v := range raw {
			if err := b.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func v0Orders() []Order {
	a := testOrder(1, "tokA", exchange.Buy)
	a.State, a.ExchangeID = Live, "X1"
	b := testOrder(2, "tokB", exchange.Buy)
	b.State = Intent
	c := testOrder(3, "tokA", exchange.Buy)
	c.State, c.ExchangeID, c.SizeMatched = Filled, "X3", c.Size
	return []Order{a, b, c}
}

// rawSchema reads the file's layout with bbolt directly: whether it has a
// meta bucket and its schema version.
func rawSchema(t *testing.T, path string) (hasMeta bool, version string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(btx *bolt.Tx) error {
		if m := btx.Bucket(bucketMeta); m != nil {
			hasMeta, version = true, string(m.Get(keySchemaVersion))
		}
		return nil
	})
	return hasMeta, version
}

func TestMigrateV0(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	writeV0(t, path, v0Orders(), nil)

	s, err := Open(path, Options{Account: "0xacc", NoSync: true})
	if err != nil {
		t.Fatalf("Open v0: %v", err)
	}
	checkOnCleanup(t, s)
	if hasMeta, v := rawSchemaOf(t, s); !hasMeta || v != strconv.Itoa(SchemaVersion) {
		t.Fatalf("after migration: meta %v version %q", hasMeta, v)
	}
	nf, err := s.NonFinalOrders()
	if err != nil || len(nf) != 2 || nf[0].State != Live || nf[1].State != Intent {
		t.Fatalf("NonFinalOrders via the built index: %+v %v", nf, err)
	}
	if o, err := s.OrderByExchangeID("X3"); err != nil || o.State != Filled {
		t.Fatalf("OrderByExchangeID: %+v %v", o, err)
	}
	// the migrated journal takes fills and new intents
	mustUpdate(t, s, func(tx *Tx) error {
		if _, err := tx.AddFill(testFill("t1", nf[0], "2", "0.45", t0)); err != nil {
			return err
		}
		return tx.PutIntent(testOrder(4, "tokA", exchange.Buy))
	})
}

// rawSchemaOf reads the schema of an open store through its own handle.
func rawSchemaOf(t *testing.T, s *Store) (hasMeta bool, version string) {
	_ = s.db.View(func(btx *bolt.Tx) error {
		if m := btx.Bucket(bucketMeta); m != nil {
			hasMeta, version = true, string(m.Get(keySchemaVersion))
		}
		return nil
	})
	return hasMeta, version
}

// A migration that fails leaves the file exactly in its old schema.
func TestMigrateV0FailsWhole(t *testing.T) {
	cases := []struct {
		name    string
		orders  []Order
		raw     map[string]string
		wantErr error
	}{
		{"bad json", v0Orders(), map[string]string{"0xbad": "{not json"}, nil},
		{"hash mismatch", v0Orders(), map[string]string{"0xother": `{"hash":"0xdifferent","state":"live"}`}, ErrInvalid},
		{"bad state", v0Orders(), map[string]string{"0xodd": `{"hash":"0xodd","state":"matched"}`}, ErrInvalid},
		{"shared exchange id", func() []Order {
			os := v0Orders()
			os[2].ExchangeID = "X1"
			return os
		}(), nil, ErrExchangeIDConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			writeV0(t, path, c.orders, c.raw)
			_, err := Open(path, Options{})
			if err == nil || (c.wantErr != nil && !errors.Is(err, c.wantErr)) {
				t.Fatalf("Open: %v, want failure %v", err, c.wantErr)
			}
			if hasMeta, _ := rawSchema(t, path); hasMeta {
				t.Fatal("failed migration left a meta bucket")
			}
		})
	}
}

// A read-only open of an old journal reads a migrated private copy and
// leaves the file alone.
func TestReadOnlyOpenOfV0(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	writeV0(t, path, v0Orders(), nil)
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, r)
	if _, ok := r.Snapshot(); !ok {
		t.Fatal("expected a private copy")
	}
	if nf, err := r.NonFinalOrders(); err != nil || len(nf) != 2 {
		t.Fatalf("%+v %v", nf, err)
	}
	if hasMeta, _ := rawSchema(t, path); hasMeta {
		t.Fatal("read-only open migrated the file")
	}
}

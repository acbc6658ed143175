package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

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

// writeV2 hand-makes a journal of schema version 1 or 2 (they share a
// layout): orders as JSON under their hashes with every state and exchange
// id indexed, fills as JSON under their seqs, positions as the fold of the
// fills.
func writeV2(t *testing.T, path string, version int, orders []Order, fills []Fill) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(btx *bolt.Tx) error {
		if err := createBuckets(btx, v2Buckets); err != nil {
			return err
		}
		if err := putSchemaVersion(btx, version); err != nil {
			return err
		}
		for _, o := range orders {
			v, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if err := btx.Bucket(bucketOrders).Put([]byte(o.Hash), v); err != nil {
				return err
			}
			if err := btx.Bucket(bucketOrdersByState).Put(v2StateKey(o.State, o.Hash), []byte{}); err != nil {
				return err
			}
			if o.ExchangeID != "" {
				if err := btx.Bucket(bucketOrdersByXID).Put([]byte(o.ExchangeID), []byte(o.Hash)); err != nil {
					return err
				}
			}
		}
		pos := map[string]*Position{}
		for i := range fills {
			f := &fills[i]
			seq, _ := btx.Bucket(bucketFills).NextSequence()
			f.Seq = seq
			v, _ := json.Marshal(f)
			for _, put := range [][3][]byte{
				{bucketFills, seqKey(seq), v},
				{bucketFillIDs, []byte(f.ID), seqKey(seq)},
				{bucketFillsByTime, fillTimeKey(f.Time, seq), {}},
			} {
				if err := btx.Bucket(put[0]).Put(put[1], put[2]); err != nil {
					return err
				}
			}
			p := pos[f.TokenID]
			if p == nil {
				p = &Position{TokenID: f.TokenID}
				pos[f.TokenID] = p
			}
			if err := p.Apply(f); err != nil {
				return err
			}
		}
		for tok, p := range pos {
			v, _ := json.Marshal(p)
			if err := btx.Bucket(bucketPositions).Put([]byte(tok), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrateV2 converts a schema-2 journal with an order in every state
// and fills of orders and of no order: every order, fill and position reads
// back the same; the signed item stays only where it may be needed; the
// final order with nothing matched is in the prune queue and the others are
// kept.
func TestMigrateV2(t *testing.T) {
	var orders []Order
	states := []OrderState{Intent, Sent, Live, PartiallyFilled, Filled, Canceled, Canceled, Failed}
	for i, st := range states {
		o := testOrder(i+1, "tokA", exchange.Buy)
		o.Item.Owner = ""
		o.State, o.UpdatedAt = st, o.CreatedAt.Add(time.Minute)
		if st != Intent {
			o.SentAt = o.CreatedAt.Add(time.Second)
		}
		if st != Intent && st != Sent && st != Failed {
			o.ExchangeID = fmt.Sprint("X", i+1)
		}
		switch {
		case st == PartiallyFilled, st == Canceled && i == 6:
			o.SizeMatched = d("4")
		case st == Filled:
			o.SizeMatched = o.Size
		}
		orders = append(orders, o)
	}
	fills := []Fill{
		testFill("t1", orders[3], "4", "0.45", t0),
		testFill("t2", orders[4], "10", "0.44", t0.Add(time.Second)),
		{ID: "ext", ConditionID: "0xcond", TokenID: "tokB", Side: exchange.Buy, Price: d("0.5"), Size: d("2"), Time: t0, External: true},
	}
	fills = append(fills, testFill("t3", orders[6], "4", "0.45", t0.Add(time.Minute)))
	path := filepath.Join(t.TempDir(), "state.db")
	writeV2(t, path, 2, orders, fills)
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, s)
	if _, v := rawSchemaOf(t, s); v != strconv.Itoa(SchemaVersion) {
		t.Fatalf("schema %q after migration", v)
	}
	for _, want := range orders {
		got, err := s.Order(want.Hash)
		if err != nil {
			t.Fatalf("order %s: %v", want.State, err)
		}
		if (got.Item == exchange.PlacementItem{}) != (want.State == Filled || want.State == Canceled) {
			t.Errorf("order %s: item %+v", want.State, got.Item)
		}
		got.Item, want.Item = exchange.PlacementItem{}, exchange.PlacementItem{}
		if !reflect.DeepEqual(normalise(got), normalise(want)) {
			t.Errorf("order %s:\n got %+v\nwant %+v", want.State, got, want)
		}
	}
	gotFills, err := s.Fills(time.Time{})
	if err != nil || len(gotFills) != len(fills) {
		t.Fatalf("fills %+v %v", gotFills, err)
	}
	for _, want := range fills {
		got, err := fillByID(s, want.ID)
		if err != nil || got.OrderHash != want.OrderHash || got.TokenID != want.TokenID || !got.Price.Equal(want.Price) ||
			!got.Time.Equal(want.Time) || got.Seq != want.Seq || got.External != want.External {
			t.Errorf("fill %s: %+v %v, want %+v", want.ID, got, err, want)
		}
	}
	// Only the canceled and the failed order with nothing matched may go.
	n, more, err := s.Prune(t0.Add(time.Hour), 100)
	if err != nil || n != 2 || more {
		t.Fatalf("Prune = %d %v %v, want 2 orders", n, more, err)
	}
	for _, i := range []int{5, 7} {
		if _, err := s.Order(orders[i].Hash); !errors.Is(err, ErrNotFound) {
			t.Errorf("pruned order %s still there: %v", orders[i].State, err)
		}
	}
	// New orders get seqs after the migrated ones.
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(testOrder(50, "tokA", exchange.Buy)) })
	if all, err := s.Orders(OrderFilter{}); err != nil || len(all) != len(orders)-1 {
		t.Fatalf("%d orders after prune and a new intent (%v), want %d", len(all), err, len(orders)-1)
	}
}

func fillByID(s *Store, id string) (f Fill, err error) {
	err = s.View(func(tx *Tx) error { f, err = tx.Fill(id); return err })
	return f, err
}

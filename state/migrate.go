package state

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// schemaVersion reads the journal's schema version. fresh is true for a file
// with no buckets at all (a journal about to be created). A file whose
// buckets are not a journal's is ErrNotJournal.
func schemaVersion(btx *bolt.Tx) (v int, fresh bool, err error) {
	meta := btx.Bucket(bucketMeta)
	if meta == nil {
		if btx.Bucket(bucketOrders) != nil {
			return 0, false, nil // the unversioned layout, schema 0
		}
		empty := true
		_ = btx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		if !empty {
			return 0, false, fmt.Errorf("no meta bucket: %w", ErrNotJournal)
		}
		return 0, true, nil
	}
	raw := meta.Get(keySchemaVersion)
	if raw == nil {
		return 0, false, fmt.Errorf("meta without schema version: %w", ErrNotJournal)
	}
	v, err = strconv.Atoi(string(raw))
	if err != nil || v < 1 {
		return 0, false, fmt.Errorf("schema version %q: %w", raw, ErrNotJournal)
	}
	return v, false, nil
}

func putSchemaVersion(btx *bolt.Tx, v int) error {
	return btx.Bucket(bucketMeta).Put(keySchemaVersion, []byte(strconv.Itoa(v)))
}

func createBuckets(btx *bolt.Tx, names [][]byte) error {
	for _, name := range names {
		if _, err := btx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// migrationFrom returns the step that takes a journal from schema version v
// to v+1.
func migrationFrom(v int) (func(*bolt.Tx) error, bool) {
	switch v {
	case 0:
		return migrate0to1, true
	case 1:
		return migrate1to2, true
	case 2:
		return migrate2to3, true
	case 3:
		return migrate3to4, true
	}
	return nil, false
}

// migrate runs every step from version `from` up to SchemaVersion inside
// btx, so that a journal is either wholly migrated or left as it was.
func migrate(btx *bolt.Tx, from int) error {
	for v := from; v < SchemaVersion; v++ {
		step, ok := migrationFrom(v)
		if !ok {
			return fmt.Errorf("no migration from schema version %d: %w", v, ErrNotJournal)
		}
		if err := step(btx); err != nil {
			return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
		if err := putSchemaVersion(btx, v+1); err != nil {
			return err
		}
	}
	return nil
}

// migrate0to1 adds the meta, index, fill and position buckets to an
// unversioned journal and builds the state and exchange-id indexes from its
// orders.
func migrate0to1(btx *bolt.Tx) error {
	if err := createBuckets(btx, v2Buckets); err != nil {
		return err
	}
	byState := btx.Bucket(bucketOrdersByState)
	byXID := btx.Bucket(bucketOrdersByXID)
	return btx.Bucket(bucketOrders).ForEach(func(k, v []byte) error {
		var o Order
		if err := json.Unmarshal(v, &o); err != nil {
			return fmt.Errorf("order %q: %w", k, err)
		}
		if o.Hash != string(k) {
			return fmt.Errorf("order under key %q has hash %q: %w", k, o.Hash, ErrInvalid)
		}
		if !o.State.Valid() {
			return fmt.Errorf("order %q: state %q: %w", k, o.State, ErrInvalid)
		}
		if err := byState.Put(v2StateKey(o.State, o.Hash), nil); err != nil {
			return err
		}
		if o.ExchangeID == "" {
			return nil
		}
		if prev := byXID.Get([]byte(o.ExchangeID)); prev != nil {
			return fmt.Errorf("exchange id %q on orders %q and %q: %w", o.ExchangeID, prev, k, ErrExchangeIDConflict)
		}
		return byXID.Put([]byte(o.ExchangeID), k)
	})
}

// migrate1to2 removes the placement item's owner (the API key, which the
// configuration treats as a secret) from every stored order.
func migrate1to2(btx *bolt.Tx) error {
	b := btx.Bucket(bucketOrders)
	type rewrite struct{ k, v []byte }
	var out []rewrite
	err := b.ForEach(func(k, v []byte) error {
		var o Order
		if err := json.Unmarshal(v, &o); err != nil {
			return fmt.Errorf("order %q: %w", k, err)
		}
		if o.Item.Owner == "" {
			return nil
		}
		o.Item.Owner = ""
		raw, err := json.Marshal(&o)
		if err != nil {
			return fmt.Errorf("order %q: encode: %w", k, err)
		}
		out = append(out, rewrite{append([]byte(nil), k...), raw})
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range out { // a bucket may not be written while ForEach walks it
		if err := b.Put(r.k, r.v); err != nil {
			return err
		}
	}
	return nil
}

// migrate2to3 rewrites a schema-2 journal in the layout of schema 3: orders
// get seqs in creation order (CreatedAt, then hash) and binary records, the
// signed item only while it is still needed, a bucket by state (open, final
// with nothing matched, kept), the final orders with nothing matched a place in the prune queue;
// fills become binary records under their seqs, indexed by their ids in
// compact form. Positions keep their format.
func migrate2to3(btx *bolt.Tx) error {
	var orders []stored
	err := btx.Bucket(bucketOrders).ForEach(func(k, v []byte) error {
		var o Order
		if err := json.Unmarshal(v, &o); err != nil {
			return fmt.Errorf("order %q: %w", k, err)
		}
		orders = append(orders, stored{Order: o})
		return nil
	})
	if err != nil {
		return err
	}
	var fills []Fill
	fillSeq := btx.Bucket(bucketFills).Sequence()
	err = btx.Bucket(bucketFills).ForEach(func(k, v []byte) error {
		var f Fill
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("fill %x: %w", k, err)
		}
		fills = append(fills, f)
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketOrders, bucketOrdersByXID, bucketOrdersByState, bucketFills, bucketFillIDs, bucketFillsByTime} {
		if err := btx.DeleteBucket(name); err != nil {
			return fmt.Errorf("drop bucket %s: %w", name, err)
		}
	}
	if err := createBuckets(btx, allBuckets); err != nil {
		return err
	}
	named := map[string]bool{}
	for _, f := range fills {
		named[f.OrderHash] = true
	}
	slices.SortFunc(orders, func(a, b stored) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	tx := &Tx{btx: btx}
	for i := range orders {
		o := &orders[i]
		o.hasFills = named[o.Hash]
		if err := tx.putOrder(nil, o); err != nil {
			return err
		}
	}
	for i := range fills {
		f := &fills[i]
		var via *stored
		if o, err := tx.load(f.OrderHash, false); f.OrderHash != "" && err == nil &&
			o.TokenID == f.TokenID && o.Side == f.Side && o.ConditionID == f.ConditionID {
			via = o
		}
		if err := btx.Bucket(bucketFills).Put(seqKey(f.Seq), encodeFill(f, via)); err != nil {
			return err
		}
		if err := btx.Bucket(bucketFillsByTime).Put(fillTimeKey(f.Time, f.Seq), []byte{}); err != nil {
			return err
		}
		if err := btx.Bucket(bucketFillIDs).Put(cstrKey(f.ID), seqKey(f.Seq)); err != nil {
			return err
		}
	}
	return btx.Bucket(bucketFills).SetSequence(fillSeq)
}

// migrate3to4 adds the trade settlement buckets. Schema 3's records stay as
// they are: no fill of theirs carries the reversal flag.
func migrate3to4(btx *bolt.Tx) error {
	return createBuckets(btx, [][]byte{bucketTrades, bucketTradesOpen})
}

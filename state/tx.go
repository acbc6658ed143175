package state

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Tx is one journal transaction, handed to the functions given to
// Store.Update (read-write) and Store.View (read-only). It is valid only
// inside that function. Write methods on a read-only Tx fail with
// ErrReadOnly.
type Tx struct {
	btx *bolt.Tx
}

// ID returns bbolt's transaction id: the number of commits the file has seen.
func (tx *Tx) ID() int { return tx.btx.ID() }

func (tx *Tx) writable() error {
	if !tx.btx.Writable() {
		return ErrReadOnly
	}
	return nil
}

// bucket returns a top-level bucket, or nil when the journal has none (a
// read-only view of a journal that was never initialised).
func (tx *Tx) bucket(name []byte) *bolt.Bucket { return tx.btx.Bucket(name) }

// has reports whether b holds key k (index entries have empty values, which
// Get does not tell apart from a missing key on every bbolt version).
func has(b *bolt.Bucket, k []byte) bool {
	if b == nil {
		return false
	}
	got, _ := b.Cursor().Seek(k)
	return got != nil && bytes.Equal(got, k)
}

func (tx *Tx) getOrder(hash string) (*Order, error) {
	b := tx.bucket(bucketOrders)
	var raw []byte
	if b != nil {
		raw = b.Get([]byte(hash))
	}
	if raw == nil {
		return nil, fmt.Errorf("order %q: %w", hash, ErrNotFound)
	}
	o := new(Order)
	if err := json.Unmarshal(raw, o); err != nil {
		return nil, fmt.Errorf("order %q: decode: %w", hash, err)
	}
	return o, nil
}

// putOrder stores o and brings the state and exchange-id indexes in line,
// given the record it replaces (nil for a new order). The caller has
// validated o and the transition.
func (tx *Tx) putOrder(prev, o *Order) error {
	if err := o.validate(); err != nil {
		return err
	}
	byXID := tx.bucket(bucketOrdersByXID)
	if o.ExchangeID != "" && (prev == nil || prev.ExchangeID != o.ExchangeID) {
		if prev != nil && prev.ExchangeID != "" {
			return fmt.Errorf("order %s has exchange id %s, answer names %s: %w", o.Hash, prev.ExchangeID, o.ExchangeID, ErrExchangeIDConflict)
		}
		if owner := byXID.Get([]byte(o.ExchangeID)); owner != nil && string(owner) != o.Hash {
			return fmt.Errorf("exchange id %s already belongs to order %s, not %s: %w", o.ExchangeID, owner, o.Hash, ErrExchangeIDConflict)
		}
		if err := byXID.Put([]byte(o.ExchangeID), []byte(o.Hash)); err != nil {
			return err
		}
	}
	byState := tx.bucket(bucketOrdersByState)
	if prev != nil && prev.State != o.State {
		if err := byState.Delete(stateKey(prev.State, prev.Hash)); err != nil {
			return err
		}
	}
	if prev == nil || prev.State != o.State {
		if err := byState.Put(stateKey(o.State, o.Hash), []byte{}); err != nil {
			return err
		}
	}
	stored := *o
	stored.Item.Owner = "" // the API key is a secret: never stored
	raw, err := json.Marshal(&stored)
	if err != nil {
		return fmt.Errorf("order %s: encode: %w", o.Hash, err)
	}
	return tx.bucket(bucketOrders).Put([]byte(o.Hash), raw)
}

package state

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Tx is one journal transaction, handed to the functions given to
// Store.Update (read-write) and Store.View (read-only). It is valid only
// inside that function. Write methods on a read-only Tx fail with
// ErrReadOnly.
type Tx struct {
	btx *bolt.Tx
	// ids and names are the name numbers this Tx gave out (names.go);
	// nameCache the store's committed ones (nil: none).
	ids       map[string]uint64
	names     map[uint64]string
	nameCache *nameCache
	// open is the store's cache of open orders (nil when it keeps none);
	// written is the last record this transaction wrote of each order it
	// changed, which the cache takes when it commits (opencache.go).
	open    *openCache
	written map[string]*stored
	// arena holds the keys and records this transaction hands to bbolt,
	// which keeps them until the transaction ends (arena.go); cursors
	// are its read cursors, one a bucket, reused by each seek.
	arena   []byte
	cursors map[string]*bolt.Cursor
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

// appendFill is the fill percent of the buckets written in key order.
const appendFill = 0.9

// where is the bucket that holds an order's record.
type where uint8

const (
	inOpen  where = iota // orders_open
	inFinal              // orders_final
	inKept               // orders_kept
)

var whereBuckets = [...][]byte{inOpen: bucketOrdersOpen, inFinal: bucketOrdersFinal, inKept: bucketOrdersKept}

// stored is an order as the journal holds it: the Order and where it is.
type stored struct {
	Order
	seq      uint64
	at       where // the bucket its record is in
	hasFills bool  // some fill names it
}

// keep reports whether a final order stays for good: something of it
// matched, or a fill names it.
func (o *stored) keep() bool { return o.SizeMatched.IsPositive() || o.hasFills }

// home is where the record of o belongs.
func (o *stored) home() where {
	switch {
	case !o.State.Final():
		return inOpen
	case o.keep():
		return inKept
	}
	return inFinal
}

// queued reports whether o is in the prune queue: final with nothing
// matched.
func (o *stored) queued() bool { return o.home() == inFinal }

// needsItem reports whether the signed item of o is kept: while it is open,
// and for a Failed order (which reconciliation may yet find on the
// exchange) until it is pruned.
func (o *stored) needsItem() bool { return !o.State.Final() || o.State == Failed }

// hashKey is the order_hashes key of an order: a 64-bit FNV-1a digest of
// its hash, then its seq. Digests may collide; a lookup reads every order
// under the digest and compares the hash.
func hashKey(hash string, seq uint64) []byte {
	return appendHashKey(make([]byte, 0, 16), hash, seq)
}

func appendHashKey(b []byte, hash string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(appendHashPrefix(b, hash), seq)
}

// appendHashPrefix appends the 64-bit FNV-1a digest of hash (hash/fnv's,
// without its allocation).
func appendHashPrefix(b []byte, hash string) []byte {
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for i := range len(hash) {
		h ^= uint64(hash[i])
		h *= prime64
	}
	return binary.BigEndian.AppendUint64(b, h)
}

// find returns the stored order with the given hash (its item not read).
// The record may be the open cache's (opencache.go): the caller copies it
// before changing it.
func (tx *Tx) find(hash string) (*stored, bool, error) {
	if o, ok := tx.cached(hash); ok {
		return o, true, nil
	}
	var pb [8]byte
	prefix := appendHashPrefix(pb[:0], hash)
	for _, name := range [...][]byte{bucketOrderHashes, bucketKeptHashes} {
		c := tx.cursor(name)
		if c == nil {
			return nil, false, nil
		}
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			if len(k) != 16 {
				return nil, false, fmt.Errorf("hash index key %x: %w", k, ErrInconsistent)
			}
			o, err := tx.orderAt(binary.BigEndian.Uint64(k[8:]), false)
			if err != nil {
				return nil, false, fmt.Errorf("hash index: %w", err)
			}
			if o.Hash == hash {
				return o, true, nil
			}
		}
	}
	return nil, false, nil
}

// hashIndex is the hash index of the orders in w: kept orders have their
// own, which grows for good but changes only when an order is kept, so
// that the cycle's inserts (and the pruner's deletes) go to an index of
// steady size.
func hashIndex(w where) []byte {
	if w == inKept {
		return bucketKeptHashes
	}
	return bucketOrderHashes
}

// orderAt reads the order record stored under seq, from whichever bucket
// holds it; withItem also reads its signed item when it has one.
func (tx *Tx) orderAt(seq uint64, withItem bool) (*stored, error) {
	k := seqKey(seq)
	o := &stored{seq: seq}
	var raw []byte
	for w, name := range whereBuckets {
		if raw = tx.get(name, k); raw != nil {
			o.at = where(w)
			break
		}
	}
	if raw == nil {
		return nil, fmt.Errorf("order seq %d: %w", seq, ErrNotFound)
	}
	if err := tx.decodeOrder(raw, o); err != nil {
		return nil, fmt.Errorf("order seq %d: decode: %w", seq, err)
	}
	if withItem {
		if err := tx.readItem(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func (tx *Tx) readItem(o *stored) error {
	raw := tx.bucket(bucketOrderItems).Get(seqKey(o.seq))
	if raw == nil {
		return nil
	}
	if err := tx.decodeItem(raw, &o.Item); err != nil {
		return fmt.Errorf("order %s: decode item: %w", o.Hash, err)
	}
	return nil
}

// load returns the stored order with the given hash, or ErrNotFound; without
// its item the record may be shared, as find's.
func (tx *Tx) load(hash string, withItem bool) (*stored, error) {
	o, ok, err := tx.find(hash)
	switch {
	case err != nil:
		return nil, fmt.Errorf("order %q: %w", hash, err)
	case !ok:
		return nil, fmt.Errorf("order %q: %w", hash, ErrNotFound)
	}
	if withItem {
		c := *o // o may be the cache's
		o = &c
		if err := tx.readItem(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// getOrder returns the order with the given hash, its item included.
func (tx *Tx) getOrder(hash string) (*Order, error) {
	o, err := tx.load(hash, true)
	if err != nil {
		return nil, err
	}
	return &o.Order, nil
}

// putOrder stores o and brings every index in line, given the record it
// replaces (nil for a new order, which gets the next seq). The caller has
// validated the transition.
func (tx *Tx) putOrder(prev, o *stored) error {
	if err := o.validate(); err != nil {
		return err
	}
	if prev == nil {
		seq, err := tx.bucket(bucketOrdersOpen).NextSequence()
		if err != nil {
			return err
		}
		o.seq = seq
		if err := tx.bucket(hashIndex(o.home())).Put(tx.keep(appendHashKey(tx.buf(), o.Hash, seq)), []byte{}); err != nil {
			return err
		}
	}
	seq := tx.keep(binary.BigEndian.AppendUint64(tx.buf(), o.seq))
	if err := tx.indexExchangeID(prev, o); err != nil {
		return err
	}
	done := tx.bucket(bucketPruneQueue)
	if prev != nil && prev.queued() && (!o.queued() || !prev.UpdatedAt.Equal(o.UpdatedAt)) {
		if err := tx.del(bucketPruneQueue, tx.keep(appendDoneKey(tx.buf(), prev.UpdatedAt, o.seq))); err != nil {
			return err
		}
	}
	if o.queued() && (prev == nil || !prev.queued() || !prev.UpdatedAt.Equal(o.UpdatedAt)) {
		done.FillPercent = appendFill
		if err := done.Put(tx.keep(appendDoneKey(tx.buf(), o.UpdatedAt, o.seq)), []byte{}); err != nil {
			return err
		}
	}
	items := tx.bucket(bucketOrderItems)
	switch {
	case prev == nil && o.needsItem():
		raw, err := tx.encodeItem(&o.Item) // never its owner: the API key is a secret
		if err != nil {
			return fmt.Errorf("order %s: encode item: %w", o.Hash, err)
		}
		items.FillPercent = appendFill
		if err := items.Put(seq, raw); err != nil {
			return err
		}
	case prev != nil && prev.needsItem() && !o.needsItem():
		if err := tx.del(bucketOrderItems, seq); err != nil {
			return err
		}
	}
	o.at = o.home()
	if prev != nil && prev.at != o.at {
		if err := tx.del(whereBuckets[prev.at], seq); err != nil {
			return err
		}
		if from, to := hashIndex(prev.at), hashIndex(o.at); !bytes.Equal(from, to) {
			hk := hashKey(o.Hash, o.seq)
			if err := tx.bucket(from).Delete(hk); err != nil {
				return err
			}
			if err := tx.bucket(to).Put(hk, []byte{}); err != nil {
				return err
			}
		}
	}
	// Records arrive about in seq order: pages filled to 90% waste less
	// than bbolt's default half-full split.
	to := tx.bucket(whereBuckets[o.at])
	to.FillPercent = appendFill
	raw, err := tx.encodeOrder(o)
	if err != nil {
		return err
	}
	if err := to.Put(seq, raw); err != nil {
		return err
	}
	tx.note(o)
	return nil
}

// indexExchangeID records a new exchange id of o in orders_by_xid (unless
// it is the order's hash, which order_hashes already finds).
func (tx *Tx) indexExchangeID(prev, o *stored) error {
	if o.ExchangeID == "" || (prev != nil && prev.ExchangeID == o.ExchangeID) {
		return nil
	}
	if prev != nil && prev.ExchangeID != "" {
		return fmt.Errorf("order %s has exchange id %s, answer names %s: %w", o.Hash, prev.ExchangeID, o.ExchangeID, ErrExchangeIDConflict)
	}
	if owner := tx.get(bucketOrdersByXID, []byte(o.ExchangeID)); owner != nil && string(owner) != o.Hash {
		return fmt.Errorf("exchange id %s already belongs to order %s, not %s: %w", o.ExchangeID, owner, o.Hash, ErrExchangeIDConflict)
	}
	if o.ExchangeID == o.Hash {
		return nil
	}
	return tx.bucket(bucketOrdersByXID).Put([]byte(o.ExchangeID), []byte(o.Hash))
}

package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"
)

// Retention: a final order with nothing matched carries no money; once it
// has been final for the retention period Prune removes it, with its index
// entries and its signed item. Orders with something matched (or a fill)
// stay for good as compact records beside their fills; fills and positions
// are never pruned. A pruned order just disappears from Order, Orders and
// EachOrder.

// Prune removes, in one transaction, at most max final orders with nothing
// matched whose last change (UpdatedAt) is before cutoff, oldest first. It
// returns how many it removed and whether more such orders remain. Keep
// max small (a few thousand) so that the transaction is short: the
// daemon's cycles wait for it (bbolt has one writer at a time).
func (s *Store) Prune(cutoff time.Time, max int) (n int, more bool, err error) {
	err = s.Update(func(tx *Tx) error { n, more, err = tx.Prune(cutoff, max); return err })
	return n, more, err
}

// Prune is Store.Prune inside an existing read-write transaction.
func (tx *Tx) Prune(cutoff time.Time, max int) (n int, more bool, err error) {
	if err := tx.writable(); err != nil {
		return 0, false, err
	}
	if max <= 0 {
		return 0, false, fmt.Errorf("prune batch %d: %w", max, ErrInvalid)
	}
	done := tx.bucket(bucketPruneQueue)
	end := timeKey(cutoff)
	var keys [][]byte
	c := done.Cursor()
	k, _ := c.First()
	for ; k != nil && bytes.Compare(k[:min(8, len(k))], end) < 0; k, _ = c.Next() {
		if len(keys) == max {
			more = true
			break
		}
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := tx.pruneOne(k); err != nil {
			return n, more, err
		}
		n++
	}
	return n, more, nil
}

// pruneOne removes the queued order of the prune_queue key k.
func (tx *Tx) pruneOne(k []byte) error {
	if len(k) != 16 {
		return fmt.Errorf("prune queue key %x: %w", k, ErrInconsistent)
	}
	if err := tx.bucket(bucketPruneQueue).Delete(k); err != nil {
		return err
	}
	seq := binary.BigEndian.Uint64(k[8:])
	o, err := tx.orderAt(seq, false)
	if err != nil {
		return fmt.Errorf("prune queue names order seq %d: %w: %w", seq, err, ErrInconsistent)
	}
	if o.at != inFinal || !o.queued() || !bytes.Equal(doneKey(o.UpdatedAt, seq), k) {
		return fmt.Errorf("prune queue names order %s (%s), which may not be pruned: %w", o.Hash, o.State, ErrInconsistent)
	}
	tx.forget(o.Hash)
	sk := seqKey(seq)
	if err := tx.bucket(bucketOrdersFinal).Delete(sk); err != nil {
		return err
	}
	if err := tx.bucket(bucketOrderItems).Delete(sk); err != nil {
		return err
	}
	if err := tx.bucket(bucketOrderHashes).Delete(hashKey(o.Hash, seq)); err != nil {
		return err
	}
	if o.ExchangeID != "" && o.ExchangeID != o.Hash {
		byXID := tx.bucket(bucketOrdersByXID)
		if string(byXID.Get([]byte(o.ExchangeID))) == o.Hash {
			return byXID.Delete([]byte(o.ExchangeID))
		}
	}
	return nil
}

// Defaults of the daemon's pruning (configs state.retention and
// state.prune_batch; see docs/configuration.md for why).
const (
	DefaultRetention  = time.Hour
	DefaultPruneBatch = 2000
)

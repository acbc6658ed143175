package state

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// maxCheckErrors bounds how many problems Check reports.
const maxCheckErrors = 20

// Check verifies the journal's invariants in one read transaction and
// returns nil or an error wrapping ErrInconsistent that lists what is wrong:
//   - bbolt's own structural check passes;
//   - the schema version is current;
//   - every order decodes, validates, is in the bucket of its state (open,
//     final with nothing matched, kept), is found by its hash, is in the
//     prune queue exactly when it is final with nothing matched, has its
//     signed item exactly while it needs it, and (when it has one that is
//     not its hash) is in the exchange-id index;
//   - every hash, name, prune-queue, item and exchange-id entry names an
//     existing order (or name) that it fits;
//   - every fill decodes, is indexed by id and by time, and names a
//     journaled order (marked as having fills) unless marked External;
//     every fill-id and fill-time entry names an existing fill;
//   - every position equals the fold of its token's fills in the order they
//     were added, and no position exists without fills.
//
// On a writable store Check runs in a read-write transaction that it rolls
// back, because bbolt's structural check is only safe alongside other writers
// that way; it therefore waits for, and holds off, the writer for its
// duration.
func (s *Store) Check() error {
	if s.readOnly { // no writer can share this handle or this file's lock
		return s.View(func(tx *Tx) error { return tx.Check() })
	}
	btx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("check %s: %w", s.path, err)
	}
	defer func() { _ = btx.Rollback() }()
	return (&Tx{btx: btx}).Check()
}

// Check is Store.Check inside an existing transaction.
func (tx *Tx) Check() error {
	c := &checker{tx: tx}
	for err := range tx.btx.Check() {
		c.addf("bbolt: %v", err)
	}
	if v, fresh, err := schemaVersion(tx.btx); err != nil {
		c.addf("%v", err)
	} else if !fresh && v != SchemaVersion {
		c.addf("schema version %d, want %d", v, SchemaVersion)
	}
	if tx.bucket(bucketMeta) != nil { // an uninitialised file has nothing else to check
		for _, name := range allBuckets {
			if tx.bucket(name) == nil {
				c.addf("missing bucket %s", name)
			}
		}
		if len(c.errs) == 0 {
			c.orders()
			c.fills()
		}
		if _, _, err := tx.RateSpent(); err != nil {
			c.addf("%v", err)
		}
	}
	if len(c.errs) == 0 {
		return nil
	}
	if c.dropped > 0 {
		c.errs = append(c.errs, fmt.Errorf("and %d more", c.dropped))
	}
	return fmt.Errorf("%w:\n%w", ErrInconsistent, errors.Join(c.errs...))
}

type checker struct {
	tx      *Tx
	errs    []error
	dropped int
}

func (c *checker) addf(format string, a ...any) {
	if len(c.errs) >= maxCheckErrors {
		c.dropped++
		return
	}
	c.errs = append(c.errs, fmt.Errorf(format, a...))
}

func (c *checker) orders() {
	tx := c.tx
	byXID := tx.bucket(bucketOrdersByXID)
	items := tx.bucket(bucketOrderItems)
	done := tx.bucket(bucketPruneQueue)
	for w, name := range whereBuckets {
		_ = tx.bucket(name).ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				c.addf("%s key %x is not a seq", name, k)
				return nil
			}
			o := stored{seq: binary.BigEndian.Uint64(k), at: where(w)}
			if err := tx.decodeOrder(v, &o); err != nil {
				c.addf("order seq %d: decode: %v", o.seq, err)
				return nil
			}
			if err := o.validate(); err != nil {
				c.addf("%v", err)
			}
			if o.home() != o.at {
				c.addf("order %s (%s, kept %v) stored in %s", o.Hash, o.State, o.keep(), name)
			}
			if !has(tx.bucket(hashIndex(o.at)), hashKey(o.Hash, o.seq)) {
				c.addf("order %s at seq %d: missing from the hash index", o.Hash, o.seq)
			} else if found, ok, _ := tx.find(o.Hash); !ok || found.seq != o.seq {
				c.addf("order %s at seq %d: its hash finds another order", o.Hash, o.seq)
			}
			if o.queued() != has(done, doneKey(o.UpdatedAt, o.seq)) {
				c.addf("order %s (%s, kept %v): prune queue entry wrong", o.Hash, o.State, o.keep())
			}
			if o.needsItem() != (items.Get(k) != nil) {
				c.addf("order %s (%s): signed item stored %v", o.Hash, o.State, items.Get(k) != nil)
			}
			if o.ExchangeID != "" && o.ExchangeID != o.Hash {
				if owner := byXID.Get([]byte(o.ExchangeID)); string(owner) != o.Hash {
					c.addf("order %s: exchange id %s indexed to %q", o.Hash, o.ExchangeID, owner)
				}
			}
			return nil
		})
	}
	for _, name := range [][]byte{bucketOrderHashes, bucketKeptHashes} {
		_ = tx.bucket(name).ForEach(func(k, _ []byte) error {
			if len(k) != 16 {
				c.addf("hash index key %x is malformed", k)
				return nil
			}
			o, err := tx.orderAt(binary.BigEndian.Uint64(k[8:]), false)
			if err != nil || !bytes.Equal(hashKey(o.Hash, o.seq), k) || !bytes.Equal(hashIndex(o.at), name) {
				c.addf("%s %x names an order it does not fit (%v)", name, k, err)
			}
			return nil
		})
	}
	_ = tx.bucket(bucketNames).ForEach(func(k, v []byte) error {
		if len(v) != 8 || string(tx.bucket(bucketNameIDs).Get(v)) == "" || !bytes.Equal(cstrKey(string(tx.bucket(bucketNameIDs).Get(v))), k) {
			c.addf("name %x has number %x, which names something else", k, v)
		}
		return nil
	})
	_ = done.ForEach(func(k, _ []byte) error {
		if len(k) != 16 {
			c.addf("prune queue key %x is malformed", k)
			return nil
		}
		if o, err := tx.orderAt(binary.BigEndian.Uint64(k[8:]), false); err != nil || !o.queued() {
			c.addf("prune queue key %x names no final order with nothing matched (%v)", k, err)
		}
		return nil
	})
	_ = items.ForEach(func(k, _ []byte) error {
		if o, err := tx.orderAt(binary.BigEndian.Uint64(append(make([]byte, 8-min(8, len(k))), k...)), false); len(k) != 8 || err != nil || !o.needsItem() {
			c.addf("signed item %x names no order that needs one", k)
		}
		return nil
	})
	_ = byXID.ForEach(func(k, v []byte) error {
		o, err := tx.getOrder(string(v))
		switch {
		case err != nil:
			c.addf("exchange id %q names order %q: %v", k, v, err)
		case o.ExchangeID != string(k):
			c.addf("exchange id %q names order %s, which has exchange id %q", k, v, o.ExchangeID)
		}
		return nil
	})
}

func (c *checker) fills() {
	fills := c.tx.bucket(bucketFills)
	ids := c.tx.bucket(bucketFillIDs)
	byTime := c.tx.bucket(bucketFillsByTime)
	folded := map[string]*Position{}
	fr := fillReader{tx: c.tx}
	// Fills are keyed by big-endian seq, so ForEach folds in the order added.
	_ = fills.ForEach(func(k, v []byte) error {
		if len(k) != 8 {
			c.addf("fill key %x is not a seq", k)
			return nil
		}
		f, err := fr.decode(k, v)
		if err != nil {
			c.addf("%v", err)
			return nil
		}
		if err := f.validate(); err != nil {
			c.addf("%v", err)
		}
		if seq := ids.Get(cstrKey(f.ID)); !bytes.Equal(seq, k) {
			c.addf("fill %s: id index holds %x, want %x", f.ID, seq, k)
		}
		if !has(byTime, fillTimeKey(f.Time, f.Seq)) {
			c.addf("fill %s missing from the time index", f.ID)
		}
		if f.OrderHash != "" {
			o, err := c.tx.load(f.OrderHash, false)
			switch {
			case err != nil && !f.External:
				c.addf("fill %s is not external and names order %q: %v", f.ID, f.OrderHash, err)
			case err == nil && !o.hasFills:
				c.addf("fill %s names order %s, which is not marked as having fills", f.ID, o.Hash)
			}
		}
		p := folded[f.TokenID]
		if p == nil {
			p = &Position{TokenID: f.TokenID}
			folded[f.TokenID] = p
		}
		if err := p.Apply(&f); err != nil {
			c.addf("folding fills: %v", err)
		}
		return nil
	})
	_ = ids.ForEach(func(k, v []byte) error {
		f, err := fr.read(v)
		if err != nil || !bytes.Equal(cstrKey(f.ID), k) {
			c.addf("fill id index %q names seq %x, which is not that fill", k, v)
		}
		return nil
	})
	_ = byTime.ForEach(func(k, _ []byte) error {
		if len(k) != 16 || fills.Get(k[8:]) == nil {
			c.addf("fill time index key %x names no fill", k)
		}
		return nil
	})
	_ = c.tx.bucket(bucketPositions).ForEach(func(k, v []byte) error {
		var p Position
		if err := json.Unmarshal(v, &p); err != nil {
			c.addf("position %s: decode: %v", k, err)
			return nil
		}
		want, ok := folded[string(k)]
		delete(folded, string(k))
		switch {
		case !ok:
			c.addf("position %s has no fills", k)
		case !positionsEqual(&p, want):
			c.addf("position %s is %+v, its fills fold to %+v", k, p, *want)
		}
		return nil
	})
	missing := make([]string, 0, len(folded))
	for token := range folded {
		missing = append(missing, token)
	}
	sort.Strings(missing)
	for _, token := range missing {
		c.addf("token %s has fills but no position", token)
	}
}

func positionsEqual(a, b *Position) bool {
	return a.TokenID == b.TokenID && a.ConditionID == b.ConditionID &&
		a.Shares.Equal(b.Shares) && a.Cost.Equal(b.Cost) &&
		a.RealizedPnL.Equal(b.RealizedPnL) && a.Fees.Equal(b.Fees) &&
		a.Fills == b.Fills && a.UpdatedAt.Equal(b.UpdatedAt)
}

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
//   - every order decodes, is stored under its hash, validates, and is in the
//     state index under its state and (when it has one) the exchange-id index
//     under its exchange id;
//   - every state-index and exchange-id-index entry names an existing order
//     in that state / with that exchange id;
//   - every fill decodes, is indexed by id and by time, and names a
//     journaled order unless marked External; every fill-id and fill-time
//     entry names an existing fill;
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
	orders := c.tx.bucket(bucketOrders)
	byState := c.tx.bucket(bucketOrdersByState)
	byXID := c.tx.bucket(bucketOrdersByXID)
	_ = orders.ForEach(func(k, v []byte) error {
		var o Order
		if err := json.Unmarshal(v, &o); err != nil {
			c.addf("order %q: decode: %v", k, err)
			return nil
		}
		if o.Hash != string(k) {
			c.addf("order under key %q has hash %q", k, o.Hash)
		}
		if err := o.validate(); err != nil {
			c.addf("%v", err)
		}
		if !has(byState, stateKey(o.State, o.Hash)) {
			c.addf("order %s (%s) missing from the state index", o.Hash, o.State)
		}
		if o.ExchangeID != "" {
			if owner := byXID.Get([]byte(o.ExchangeID)); string(owner) != o.Hash {
				c.addf("order %s: exchange id %s indexed to %q", o.Hash, o.ExchangeID, owner)
			}
		}
		return nil
	})
	_ = byState.ForEach(func(k, _ []byte) error {
		i := bytes.IndexByte(k, 0)
		if i < 0 {
			c.addf("state index key %q has no separator", k)
			return nil
		}
		st, hash := OrderState(k[:i]), k[i+1:]
		o, err := c.tx.getOrder(string(hash))
		switch {
		case err != nil:
			c.addf("state index %s names order %q: %v", st, hash, err)
		case o.State != st:
			c.addf("state index %s names order %s, which is %s", st, hash, o.State)
		}
		return nil
	})
	_ = byXID.ForEach(func(k, v []byte) error {
		o, err := c.tx.getOrder(string(v))
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
	// Fills are keyed by big-endian seq, so ForEach folds in the order added.
	_ = fills.ForEach(func(k, v []byte) error {
		var f Fill
		if err := json.Unmarshal(v, &f); err != nil {
			c.addf("fill %x: decode: %v", k, err)
			return nil
		}
		if len(k) != 8 || binary.BigEndian.Uint64(k) != f.Seq {
			c.addf("fill %s stored under key %x, seq %d", f.ID, k, f.Seq)
		}
		if err := f.validate(); err != nil {
			c.addf("%v", err)
		}
		if seq := ids.Get([]byte(f.ID)); !bytes.Equal(seq, k) {
			c.addf("fill %s: id index holds %x, want %x", f.ID, seq, k)
		}
		if !has(byTime, fillTimeKey(f.Time, f.Seq)) {
			c.addf("fill %s missing from the time index", f.ID)
		}
		if !f.External {
			if _, err := c.tx.getOrder(f.OrderHash); err != nil {
				c.addf("fill %s is not external and names order %q: %v", f.ID, f.OrderHash, err)
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
		raw := fills.Get(v)
		var f Fill
		if raw == nil || json.Unmarshal(raw, &f) != nil || f.ID != string(k) {
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

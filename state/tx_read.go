package state

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// OrderFilter selects orders. Zero fields match everything.
type OrderFilter struct {
	States      []OrderState // any of these states
	TokenID     string
	ConditionID string
}

func (f *OrderFilter) match(o *Order) bool {
	return (f.TokenID == "" || o.TokenID == f.TokenID) &&
		(f.ConditionID == "" || o.ConditionID == f.ConditionID) &&
		(len(f.States) == 0 || slices.Contains(f.States, o.State))
}

// Order returns the order with the given hash, or ErrNotFound.
func (tx *Tx) Order(hash string) (Order, error) {
	o, err := tx.getOrder(hash)
	if err != nil {
		return Order{}, err
	}
	return *o, nil
}

// OrderByExchangeID returns the order the exchange knows by id, or
// ErrNotFound.
func (tx *Tx) OrderByExchangeID(id string) (Order, error) {
	b := tx.bucket(bucketOrdersByXID)
	if b == nil || id == "" {
		return Order{}, fmt.Errorf("exchange id %q: %w", id, ErrNotFound)
	}
	if hash := b.Get([]byte(id)); hash != nil {
		return tx.Order(string(hash))
	}
	// An exchange id equal to the order's hash is not indexed twice.
	if o, err := tx.getOrder(id); err == nil && o.ExchangeID == id {
		return *o, nil
	}
	return Order{}, fmt.Errorf("exchange id %q: %w", id, ErrNotFound)
}

// Orders returns the orders that match f, oldest first (by CreatedAt, then
// hash). With States set it reads only those states' index ranges.
func (tx *Tx) Orders(f OrderFilter) ([]Order, error) {
	var out []Order
	if err := tx.EachOrder(f, func(o *Order) error { out = append(out, *o); return nil }); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Order) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	return out, nil
}

// EachOrder calls fn with each order that matches f, one decoded order at
// a time and in no particular order, so that a reader can go through a
// large journal without holding it in memory; an error from fn stops the
// walk and is returned. With States set to open states only it reads only
// the open orders. fn gets a fresh Order each call and must not write to
// the store. Final orders with nothing matched that Prune removed are gone.
func (tx *Tx) EachOrder(f OrderFilter, fn func(o *Order) error) error {
	if tx.bucket(bucketOrdersOpen) == nil {
		return nil
	}
	homes := []where{inOpen}
	if len(f.States) == 0 || slices.ContainsFunc(f.States, OrderState.Final) {
		homes = append(homes, inFinal, inKept)
	}
	for _, w := range homes {
		c := tx.bucket(whereBuckets[w]).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(k) != 8 {
				return fmt.Errorf("%s key %x: %w", whereBuckets[w], k, ErrInconsistent)
			}
			o := stored{seq: binary.BigEndian.Uint64(k), at: w}
			if err := tx.decodeOrder(v, &o); err != nil {
				return fmt.Errorf("decode order seq %d: %w", o.seq, err)
			}
			if !f.match(&o.Order) {
				continue
			}
			if o.needsItem() {
				if err := tx.readItem(&o); err != nil {
					return err
				}
			}
			if err := fn(&o.Order); err != nil {
				return err
			}
		}
	}
	return nil
}

// NonFinalOrders returns every order in Intent, Sent, Live or
// PartiallyFilled: what reconciliation must settle after a restart, and what
// the planner treats as open.
func (tx *Tx) NonFinalOrders() ([]Order, error) {
	return tx.Orders(OrderFilter{States: []OrderState{Intent, Sent, Live, PartiallyFilled}})
}

// position returns the stored position of token, or a new empty one.
func (tx *Tx) position(token string) (*Position, error) {
	p := &Position{TokenID: token}
	b := tx.bucket(bucketPositions)
	if b == nil {
		return p, nil
	}
	raw := b.Get([]byte(token))
	if raw == nil {
		return p, nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("position %s: decode: %w", token, err)
	}
	return p, nil
}

// Position returns the position in token (zero when it has no fills).
func (tx *Tx) Position(token string) (Position, error) {
	p, err := tx.position(token)
	if err != nil {
		return Position{}, err
	}
	return *p, nil
}

// Positions returns every position, ordered by token id.
func (tx *Tx) Positions() ([]Position, error) {
	var out []Position
	b := tx.bucket(bucketPositions)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		var p Position
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("position %s: decode: %w", k, err)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// Fills returns the fills with Time at or after since, oldest first (ties in
// the order they were added). A zero since returns every fill.
func (tx *Tx) Fills(since time.Time) ([]Fill, error) {
	var out []Fill
	err := tx.EachFill(since, func(f *Fill) error { out = append(out, *f); return nil })
	return out, err
}

// EachFill calls fn with each fill with Time at or after since, oldest
// first (ties in the order they were added), one at a time; an error from
// fn stops the walk and is returned.
func (tx *Tx) EachFill(since time.Time, fn func(f *Fill) error) error {
	byTime := tx.bucket(bucketFillsByTime)
	if byTime == nil || tx.bucket(bucketFills) == nil {
		return nil
	}
	fr := fillReader{tx: tx}
	c := byTime.Cursor()
	k, _ := c.First()
	if !since.IsZero() {
		k, _ = c.Seek(timeKey(since))
	}
	for ; k != nil; k, _ = c.Next() {
		if len(k) != 16 {
			return fmt.Errorf("fill time index key %x: %w", k, ErrInconsistent)
		}
		f, err := fr.read(k[8:])
		if err != nil {
			return err
		}
		if err := fn(&f); err != nil {
			return err
		}
	}
	return nil
}

// fillReader reads fill records, filling in what a record takes from its
// order (the last order read is remembered: an order's fills come
// together).
type fillReader struct {
	tx   *Tx
	last *stored
}

// read returns the fill stored under seq (8 bytes), or ErrNotFound.
func (r *fillReader) read(seq []byte) (Fill, error) {
	raw := r.tx.bucket(bucketFills).Get(seq)
	if raw == nil || len(seq) != 8 {
		return Fill{}, fmt.Errorf("fill seq %x: %w", seq, ErrNotFound)
	}
	return r.decode(seq, raw)
}

func (r *fillReader) decode(seq, raw []byte) (Fill, error) {
	var f Fill
	orderSeq, err := decodeFill(raw, &f)
	if err != nil {
		return Fill{}, fmt.Errorf("fill %x: decode: %w", seq, err)
	}
	f.Seq = binary.BigEndian.Uint64(seq)
	if orderSeq != 0 {
		if r.last == nil || r.last.seq != orderSeq {
			o, err := r.tx.orderAt(orderSeq, false)
			if err != nil {
				return Fill{}, fmt.Errorf("fill %s: its order: %w: %w", f.ID, err, ErrInconsistent)
			}
			r.last = o
		}
		f.OrderHash, f.ConditionID, f.TokenID, f.Side = r.last.Hash, r.last.ConditionID, r.last.TokenID, r.last.Side
	}
	return f, nil
}

// Fill returns the fill with the given id, or ErrNotFound.
func (tx *Tx) Fill(id string) (Fill, error) {
	ids := tx.bucket(bucketFillIDs)
	var seq []byte
	if ids != nil {
		seq = ids.Get(cstrKey(id))
	}
	if seq == nil || tx.bucket(bucketFills) == nil {
		return Fill{}, fmt.Errorf("fill %q: %w", id, ErrNotFound)
	}
	fr := fillReader{tx: tx}
	f, err := fr.read(seq)
	if errors.Is(err, ErrNotFound) {
		return Fill{}, fmt.Errorf("fill %q: seq %x missing: %w", id, seq, ErrInconsistent)
	}
	return f, err
}

// Meta returns a meta value and whether it is set. The store's own keys
// (schema_version, account) can be read too.
func (tx *Tx) Meta(key string) (string, bool) {
	b := tx.bucket(bucketMeta)
	if b == nil {
		return "", false
	}
	k, v := b.Cursor().Seek([]byte(key))
	if k == nil || string(k) != key {
		return "", false
	}
	return string(v), true
}

// Account returns the account recorded in the journal ("" if none).
func (tx *Tx) Account() string {
	v, _ := tx.Meta(string(keyAccount))
	return v
}

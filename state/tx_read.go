package state

import (
	"bytes"
	"encoding/json"
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
	hash := b.Get([]byte(id))
	if hash == nil {
		return Order{}, fmt.Errorf("exchange id %q: %w", id, ErrNotFound)
	}
	return tx.Order(string(hash))
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
// walk and is returned. With States set it reads only those states' index
// ranges. fn gets a fresh Order each call and must not write to the store.
func (tx *Tx) EachOrder(f OrderFilter, fn func(o *Order) error) error {
	visit := func(raw []byte) error {
		var o Order
		if err := json.Unmarshal(raw, &o); err != nil {
			return fmt.Errorf("decode order: %w", err)
		}
		if !f.match(&o) {
			return nil
		}
		return fn(&o)
	}
	orders := tx.bucket(bucketOrders)
	if orders == nil {
		return nil
	}
	if len(f.States) == 0 {
		return orders.ForEach(func(_, v []byte) error { return visit(v) })
	}
	byState := tx.bucket(bucketOrdersByState)
	seen := make(map[OrderState]bool, len(f.States))
	for _, st := range f.States {
		if seen[st] || byState == nil {
			continue
		}
		seen[st] = true
		prefix := stateKeyPrefix(st)
		c := byState.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			hash := k[len(prefix):]
			raw := orders.Get(hash)
			if raw == nil {
				return fmt.Errorf("state index names missing order %q: %w", hash, ErrInconsistent)
			}
			if err := visit(raw); err != nil {
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
	byTime, fills := tx.bucket(bucketFillsByTime), tx.bucket(bucketFills)
	if byTime == nil || fills == nil {
		return nil, nil
	}
	var out []Fill
	c := byTime.Cursor()
	k, _ := c.First()
	if !since.IsZero() {
		k, _ = c.Seek(timeKey(since))
	}
	for ; k != nil; k, _ = c.Next() {
		if len(k) != 16 {
			return nil, fmt.Errorf("fill time index key %x: %w", k, ErrInconsistent)
		}
		raw := fills.Get(k[8:])
		if raw == nil {
			return nil, fmt.Errorf("fill time index names missing fill %x: %w", k[8:], ErrInconsistent)
		}
		var f Fill
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("fill %x: decode: %w", k[8:], err)
		}
		out = append(out, f)
	}
	return out, nil
}

// Fill returns the fill with the given id, or ErrNotFound.
func (tx *Tx) Fill(id string) (Fill, error) {
	ids, fills := tx.bucket(bucketFillIDs), tx.bucket(bucketFills)
	var seq []byte
	if ids != nil {
		seq = ids.Get([]byte(id))
	}
	if seq == nil || fills == nil {
		return Fill{}, fmt.Errorf("fill %q: %w", id, ErrNotFound)
	}
	raw := fills.Get(seq)
	if raw == nil {
		return Fill{}, fmt.Errorf("fill %q: seq %x missing: %w", id, seq, ErrInconsistent)
	}
	var f Fill
	if err := json.Unmarshal(raw, &f); err != nil {
		return Fill{}, fmt.Errorf("fill %q: decode: %w", id, err)
	}
	return f, nil
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

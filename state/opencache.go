package state

import (
	"sync"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// openCache keeps the committed record (without its signed item) of each
// open order this process journaled, by hash, so that the cycle's updates
// neither search the hash index nor read and decode the record. Every
// write of an order record goes through putOrder, which notes the record a
// transaction wrote (Tx.written); the cache takes a transaction's notes
// only when it commits, so it holds what the file holds: the same values,
// times as decoding gives them back (canonTimes). Final orders leave it;
// Prune removes final orders only.
type openCache struct {
	mu sync.Mutex
	m  map[string]*stored
}

func newOpenCache() *openCache { return &openCache{m: map[string]*stored{}} }

// get returns the cached record of hash. Records in the cache are never
// changed (a commit replaces them): read it, copy it to change it.
func (c *openCache) get(hash string) (*stored, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[hash]
	return o, ok
}

// apply makes one committed transaction's changes: the last record it
// wrote of each order.
func (c *openCache) apply(written map[string]*stored) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, o := range written {
		if o.State.Final() {
			delete(c.m, h)
		} else {
			c.m[h] = o
		}
	}
}

// note records o as the last record this transaction wrote of its order,
// for the transaction's own lookups (cached) and, once it commits, for the
// store's cache. o becomes the cache's: its item is dropped, its times made
// canonical, and nothing changes it afterwards (putOrder's callers do not
// use it again, and lookups hand out copies to change).
func (tx *Tx) note(o *stored) {
	if tx.open == nil {
		return
	}
	if tx.written == nil {
		tx.written = map[string]*stored{}
		written := tx.written
		tx.btx.OnCommit(func() { tx.open.apply(written) })
	}
	o.Item = exchange.PlacementItem{}
	canonTimes(o)
	tx.written[o.Hash] = o
}

// forget drops this transaction's note of an order it deleted (Prune).
func (tx *Tx) forget(hash string) { delete(tx.written, hash) }

// cached returns the record of hash as this transaction last wrote it, or
// else as the store's cache holds it (an open order): shared, not to be
// changed.
func (tx *Tx) cached(hash string) (*stored, bool) {
	if tx.open == nil {
		return nil, false
	}
	if o, ok := tx.written[hash]; ok {
		return o, true
	}
	return tx.open.get(hash)
}

// canonTimes makes o's times what decoding its record gives back: UTC, no
// monotonic reading, SentAt and UpdatedAt as deltas from CreatedAt (which
// validate requires).
func canonTimes(o *stored) {
	created := time.Unix(0, o.CreatedAt.UnixNano()).UTC()
	if !o.SentAt.IsZero() {
		o.SentAt = created.Add(o.SentAt.Sub(o.CreatedAt))
	}
	if !o.UpdatedAt.IsZero() {
		o.UpdatedAt = created.Add(o.UpdatedAt.Sub(o.CreatedAt))
	}
	o.CreatedAt = created
}

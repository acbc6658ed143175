package state

import "sync"

// openCache maps the hashes of the open orders this process journaled to
// their seqs, so that the cycle's updates find them without a search of the
// hash index. It changes only when a transaction commits; a lookup checks
// the record it points at and falls back to the index on a miss, so an
// entry that is stale or missing costs a search, never a wrong answer.
type openCache struct {
	mu sync.Mutex
	m  map[string]uint64
}

func (c *openCache) get(hash string) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seq, ok := c.m[hash]
	return seq, ok
}

// apply makes one committed transaction's changes.
func (c *openCache) apply(add map[string]uint64, del []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range del {
		delete(c.m, h)
	}
	for h, seq := range add {
		c.m[h] = seq
	}
}

// noteOpen records, for the cache once tx commits, whether the order o is
// open after this change (prev nil: a new order).
func (tx *Tx) noteOpen(prev, o *stored) {
	if tx.open == nil {
		return
	}
	wasOpen, isOpen := prev != nil && !prev.State.Final(), !o.State.Final()
	if wasOpen == isOpen {
		return
	}
	if tx.openAdd == nil && tx.openDel == nil {
		tx.btx.OnCommit(func() { tx.open.apply(tx.openAdd, tx.openDel) })
	}
	if isOpen {
		if tx.openAdd == nil {
			tx.openAdd = map[string]uint64{}
		}
		tx.openAdd[o.Hash] = o.seq
		return
	}
	delete(tx.openAdd, o.Hash)
	tx.openDel = append(tx.openDel, o.Hash)
}

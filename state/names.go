package state

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// Token and condition ids repeat in every order of a market: order records
// store them as small numbers (uvarint) that the names and name_ids
// buckets map to and from the ids. Zero is the empty string. A number,
// once committed, never changes: the store caches the committed ones
// (nameCache), a Tx the ones it gave out itself until it commits.

// nameCache holds committed name numbers, both ways.
type nameCache struct {
	mu    sync.Mutex
	ids   map[string]uint64
	names map[uint64]string
}

func newNameCache() *nameCache {
	return &nameCache{ids: map[string]uint64{}, names: map[uint64]string{}}
}

func (c *nameCache) id(name string) (uint64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.ids[name]
	return id, ok
}

func (c *nameCache) name(id uint64) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.names[id]
	return s, ok
}

func (c *nameCache) add(name string, id uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids[name], c.names[id] = id, name
}

// nameID returns the number of name, giving it the next one when it has
// none yet (which needs a writable Tx).
func (tx *Tx) nameID(name string) (uint64, error) {
	if name == "" {
		return 0, nil
	}
	if id, ok := tx.ids[name]; ok {
		return id, nil
	}
	if id, ok := tx.nameCache.id(name); ok {
		return id, nil
	}
	k := cstrKey(name)
	if v := tx.bucket(bucketNames).Get(k); len(v) == 8 {
		id := binary.BigEndian.Uint64(v)
		tx.nameCache.add(name, id) // not given out by this Tx: committed
		return id, nil
	}
	if err := tx.writable(); err != nil {
		return 0, err
	}
	byID := tx.bucket(bucketNameIDs)
	id, err := byID.NextSequence()
	if err != nil {
		return 0, err
	}
	byID.FillPercent = appendFill
	if err := byID.Put(seqKey(id), []byte(name)); err != nil {
		return 0, err
	}
	if err := tx.bucket(bucketNames).Put(k, seqKey(id)); err != nil {
		return 0, err
	}
	tx.cacheName(name, id)
	if c := tx.nameCache; c != nil {
		tx.btx.OnCommit(func() { c.add(name, id) })
	}
	return id, nil
}

// name returns the name numbered id.
func (tx *Tx) name(id uint64) (string, error) {
	if id == 0 {
		return "", nil
	}
	if s, ok := tx.names[id]; ok {
		return s, nil
	}
	if s, ok := tx.nameCache.name(id); ok {
		return s, nil
	}
	v := tx.bucket(bucketNameIDs).Get(seqKey(id))
	if v == nil {
		return "", fmt.Errorf("name %d: %w", id, ErrInconsistent)
	}
	s := string(v)
	if _, mine := tx.ids[s]; !mine {
		tx.nameCache.add(s, id)
	}
	return s, nil
}

func (tx *Tx) cacheName(name string, id uint64) {
	if tx.ids == nil {
		tx.ids, tx.names = map[string]uint64{}, map[uint64]string{}
	}
	tx.ids[name], tx.names[id] = id, name
}

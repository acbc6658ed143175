package state

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The arena's chunks start at arenaFirst bytes and double up to
// arenaChunk, so that a transaction of a few orders takes little; arenaRoom
// is the least room buf leaves for one key or record (a longer one grows
// out of the chunk, into its own allocation).
const (
	arenaFirst = 4 << 10
	arenaChunk = 32 << 10
	arenaRoom  = 512
)

// buf returns an empty slice to build one key or record in, with the rest
// of the transaction's current arena chunk as its capacity. bbolt keeps
// the keys and values it is given until the transaction ends, so each
// needs memory of its own: carving them out of chunks saves an allocation
// each (a cycle writes thousands). One at a time: keep what a buf built
// before the next buf.
func (tx *Tx) buf() []byte {
	if cap(tx.arena)-len(tx.arena) < arenaRoom {
		tx.arena = make([]byte, 0, min(max(2*cap(tx.arena), arenaFirst), arenaChunk))
	}
	return tx.arena[len(tx.arena):]
}

// keep marks b, built from the last buf, as used: the next buf starts
// after it. b comes back with its capacity cut to its length, so that
// nothing appended to it later can reach the arena's next bytes. A b that
// outgrew the chunk is already memory of its own.
func (tx *Tx) keep(b []byte) []byte {
	n := len(tx.arena)
	if len(b) > 0 && cap(b) == cap(tx.arena)-n && &tx.arena[:n+1][n] == &b[0] {
		tx.arena = tx.arena[:n+len(b)]
	}
	return b[:len(b):len(b)]
}

// get is the bucket's Get through the transaction's cursor of it.
func (tx *Tx) get(name, k []byte) []byte {
	c := tx.cursor(name)
	if c == nil {
		return nil
	}
	if got, v := c.Seek(k); bytes.Equal(got, k) {
		return v
	}
	return nil
}

// del is the bucket's Delete through the transaction's cursor of it.
func (tx *Tx) del(name, k []byte) error {
	c := tx.cursor(name)
	if c == nil {
		return fmt.Errorf("bucket %s: %w", name, ErrInconsistent)
	}
	if got, _ := c.Seek(k); bytes.Equal(got, k) {
		return c.Delete()
	}
	return nil
}

// cursor returns the transaction's read cursor of a top-level bucket (nil
// when the journal has none), made once and positioned again by each
// Seek: a bucket's Get makes a new cursor, and its stack, every call.
func (tx *Tx) cursor(name []byte) *bolt.Cursor {
	if c, ok := tx.cursors[string(name)]; ok {
		return c
	}
	b := tx.bucket(name)
	if b == nil {
		return nil
	}
	if tx.cursors == nil {
		tx.cursors = map[string]*bolt.Cursor{}
	}
	c := b.Cursor()
	tx.cursors[string(name)] = c
	return c
}

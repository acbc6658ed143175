package state

import (
	"encoding/binary"
	"time"
)

// On-disk layout, schema version 1. Every bucket is top level.
//
//	meta            "schema_version" → decimal ASCII; "account" → account;
//	                "rate_spent" → the rate-limit record (ratespent.go);
//	                other keys → SetMeta values
//	orders          order hash → Order JSON
//	orders_by_xid   exchange order id → order hash
//	orders_by_state state name ‖ 0x00 ‖ order hash → empty
//	fills           seq (8 bytes, big endian) → Fill JSON
//	fill_ids        fill id → seq (8 bytes, big endian)
//	fills_by_time   time key (8 bytes) ‖ seq (8 bytes) → empty
//	positions       token id → Position JSON
//
// Schema version 0 (the layout before versioning, kept for the migration
// test and any journal written by it): only "orders", hash → Order JSON,
// with no meta bucket and no indexes.
var (
	bucketMeta          = []byte("meta")
	bucketOrders        = []byte("orders")
	bucketOrdersByXID   = []byte("orders_by_xid")
	bucketOrdersByState = []byte("orders_by_state")
	bucketFills         = []byte("fills")
	bucketFillIDs       = []byte("fill_ids")
	bucketFillsByTime   = []byte("fills_by_time")
	bucketPositions     = []byte("positions")

	keySchemaVersion = []byte("schema_version")
	keyAccount       = []byte("account")
)

// allBuckets lists the buckets of the current schema.
var allBuckets = [][]byte{
	bucketMeta, bucketOrders, bucketOrdersByXID, bucketOrdersByState,
	bucketFills, bucketFillIDs, bucketFillsByTime, bucketPositions,
}

// SchemaVersion is the journal layout this binary writes. Version 2 stores
// no placement item's owner (the API key); version 1 did.
const SchemaVersion = 2

// maxKeyLen bounds hashes, exchange ids, fill ids and token ids, far below
// bbolt's key limit.
const maxKeyLen = 512

// stateKey is the orders_by_state key of one order.
func stateKey(s OrderState, hash string) []byte {
	k := make([]byte, 0, len(s)+1+len(hash))
	k = append(k, s...)
	k = append(k, 0)
	return append(k, hash...)
}

// stateKeyPrefix is the prefix shared by every orders_by_state key of s.
func stateKeyPrefix(s OrderState) []byte {
	return append([]byte(s), 0)
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// timeKey orders times bytewise: Unix nanoseconds with the sign bit flipped,
// big endian, so that times before 1970 sort first. Times outside the int64
// nanosecond range clamp, which is harmless for an index.
func timeKey(t time.Time) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(t.UnixNano())^(1<<63))
	return k[:]
}

func fillTimeKey(t time.Time, seq uint64) []byte {
	return append(timeKey(t), seqKey(seq)...)
}

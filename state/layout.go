package state

import (
	"encoding/binary"
	"time"
)

// On-disk layout, schema version 3. Every bucket is top level; seq is an
// order's or a fill's 8-byte big-endian sequence number, so that new records
// append at the end of their bucket instead of landing at a random hash.
//
//	meta            "schema_version" → decimal ASCII; "account" → account;
//	                "rate_spent" → the rate-limit record (ratespent.go);
//	                other keys → SetMeta values
//	orders_open     seq → order record (codec.go) of every open order
//	orders_final    seq → order record: final orders with nothing matched,
//	                until Prune removes them
//	orders_kept     seq → order record: final orders with something matched
//	                (or a fill), kept for good beside their fills
//	order_hashes    FNV-1a 64 of the order hash ‖ seq → empty, for the orders
//	                in orders_open and orders_final
//	kept_hashes     the same for the orders in orders_kept
//	names           token or condition id (compact) → its number (8 bytes)
//	name_ids        number (8 bytes) → token or condition id
//	order_items     seq → the signed placement item (codec.go, no owner), while
//	                the order is open (and for a Failed order, until pruned)
//	orders_by_xid   exchange order id → order hash, when the id is not the
//	                hash itself
//	prune_queue     time key of UpdatedAt ‖ seq → empty: the orders in
//	                orders_final, oldest first
//	fills           seq → fill record (codec.go)
//	fill_ids        fill id (compact) → seq
//	fills_by_time   time key (8 bytes) ‖ seq (8 bytes) → empty
//	positions       token id → Position JSON
//	trades          trade key (TradeKey, compact) → Trade JSON: the trades
//	                not yet final, and the FAILED ones (schema 4)
//	trades_open     trade key (compact) → empty: the trades not yet final
//
// A fill record's flags may mark it a reversal (fillReversal, schema 4): it
// takes back a FAILED trade's fill. Schema 3 had neither the flag nor the
// trades buckets; migrate3to4 adds the buckets (its records stay valid).
//
// An order moves between orders_open, orders_final and orders_kept as its
// state changes, keeping its seq; open orders are few, so reading them all
// (a restart's reconciliation) reads one small bucket.
//
// Schema version 2 (and 1, which also stored the item's owner) kept every
// order as JSON with its whole item under its hash ("orders"), indexed every
// state in orders_by_state (state ‖ 0x00 ‖ hash) and every exchange id,
// and kept fills as JSON; migrate2to3 converts it. Schema version 0 (the
// layout before versioning, kept for the migration test and any journal
// written by it): only "orders", hash → Order JSON, with no meta bucket and
// no indexes.
var (
	bucketMeta          = []byte("meta")
	bucketOrders        = []byte("orders") // schema 0 to 2
	bucketOrdersOpen    = []byte("orders_open")
	bucketOrdersFinal   = []byte("orders_final")
	bucketOrdersKept    = []byte("orders_kept")
	bucketOrderHashes   = []byte("order_hashes")
	bucketKeptHashes    = []byte("kept_hashes")
	bucketOrderItems    = []byte("order_items")
	bucketOrdersByXID   = []byte("orders_by_xid")
	bucketOrdersByState = []byte("orders_by_state") // schema 1 and 2
	bucketPruneQueue    = []byte("prune_queue")
	bucketNames         = []byte("names")
	bucketNameIDs       = []byte("name_ids")
	bucketFills         = []byte("fills")
	bucketFillIDs       = []byte("fill_ids")
	bucketFillsByTime   = []byte("fills_by_time")
	bucketPositions     = []byte("positions")
	bucketTrades        = []byte("trades")
	bucketTradesOpen    = []byte("trades_open")

	keySchemaVersion = []byte("schema_version")
	keyAccount       = []byte("account")
)

// allBuckets lists the buckets of the current schema.
var allBuckets = [][]byte{
	bucketMeta, bucketOrdersOpen, bucketOrdersFinal, bucketOrdersKept, bucketOrderHashes, bucketKeptHashes, bucketOrderItems,
	bucketOrdersByXID, bucketPruneQueue, bucketNames, bucketNameIDs,
	bucketFills, bucketFillIDs, bucketFillsByTime, bucketPositions, bucketTrades, bucketTradesOpen,
}

// v2Buckets lists the buckets of schema versions 1 and 2.
var v2Buckets = [][]byte{
	bucketMeta, bucketOrders, bucketOrdersByXID, bucketOrdersByState,
	bucketFills, bucketFillIDs, bucketFillsByTime, bucketPositions,
}

// SchemaVersion is the journal layout this binary writes. Version 4 adds
// trade settlement (the trades buckets, reversal fills). Version 3 stores
// binary records keyed by sequence and drops what a final order no longer
// needs; version 2 stores no placement item's owner (the API key); version 1
// did.
const SchemaVersion = 4

// maxKeyLen bounds hashes, exchange ids, fill ids and token ids, far below
// bbolt's key limit.
const maxKeyLen = 512

// v2StateKey is the orders_by_state key of schema versions 1 and 2.
func v2StateKey(s OrderState, hash string) []byte {
	k := make([]byte, 0, len(s)+1+len(hash))
	k = append(k, s...)
	k = append(k, 0)
	return append(k, hash...)
}

// doneKey is the prune_queue key of a final order.
func doneKey(updated time.Time, seq uint64) []byte {
	return appendDoneKey(make([]byte, 0, 16), updated, seq)
}

func appendDoneKey(b []byte, updated time.Time, seq uint64) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(updated.UnixNano())^(1<<63)) // timeKey
	return binary.BigEndian.AppendUint64(b, seq)
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

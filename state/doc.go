// Package state is mmbot's write-ahead order journal: every order the bot
// signs, what the exchange said about it, the fills it got and the positions
// they add up to, in one bbolt file.
//
// The contract with the strategy loop:
//
//   - Before an order is sent, its intent (the signed order, its hash, its
//     salt) is committed with Tx.PutIntent. After a crash at any instant the
//     journal therefore names every order that might be on the exchange, and
//     reconciliation (package strategy/loop) settles each non-final one by hash
//     with GET /data/order/{id} instead of sending anything twice.
//   - The exchange's answers update the record (Tx.MarkSent, Tx.ApplyResult,
//     Tx.SetState) along the transition table of CanTransition; an answer
//     whose outcome is unknown leaves the order Sent until reconciled.
//   - One cycle's writes go through one Store.Update: one bbolt transaction,
//     one fsync. The secondary indexes (exchange id → hash, state → hashes)
//     change in the same transaction as the orders they index.
//   - Fills are idempotent by ID and fold into per-token positions (average
//     cost accounting, exact decimals; see Position).
//   - Retention (prune.go): once an order is final its signed item is
//     dropped; a final order with nothing matched is removed by Prune once
//     it has been final for the retention period (the daemon runs it in
//     the background in small transactions); orders with something
//     matched stay as compact records beside their fills, and fills and
//     positions stay for good. Compact gives freed space back to the
//     filesystem (bbolt never shrinks a file).
//   - Records are compact binary (codec.go) keyed by sequence, so a cycle's
//     new orders append instead of landing at random hashes; layout.go
//     describes the buckets.
//   - The rate-limit record (SaveRateSpent, RateSpent) keeps what the
//     exchange client's buckets spent (exchange.Spent), so that the next
//     process starts its buckets from what remains; Created tells a new
//     journal from one last used by a binary that kept no record.
//
// Opening: a writer takes bbolt's exclusive file lock with a timeout (a
// second instance fails with ErrLocked), migrates an older schema in one
// transaction, and refuses a newer schema (ErrSchemaTooNew) or another
// account's journal (ErrAccountMismatch). A read-only open (mmbot orders)
// works while the writer runs, by reading a consistent private copy; see
// Open.
//
// Store.Check verifies every invariant (record placement, indexes, the prune
// queue, fill references, positions as the fold of their fills); tests run
// it after each test on a fresh file.
//
// The package imports only exchange (types), internal/atomicfile (Compact's
// swap) and bbolt.
package state

package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// PutIntent journals a new order before it is sent. o.State must be Intent
// (or empty, meaning Intent); o.CreatedAt must be set; UpdatedAt defaults to
// CreatedAt. A hash already in the journal is ErrOrderExists: an order is
// journaled, and sent, once.
func (tx *Tx) PutIntent(o Order) error {
	if err := tx.writable(); err != nil {
		return err
	}
	if o.State == "" {
		o.State = Intent
	}
	if o.State != Intent {
		return fmt.Errorf("order %q: PutIntent with state %s: %w", o.Hash, o.State, ErrInvalid)
	}
	if o.UpdatedAt.IsZero() {
		o.UpdatedAt = o.CreatedAt
	}
	if err := o.validate(); err != nil {
		return err
	}
	if _, ok, err := tx.find(o.Hash); err != nil || ok {
		if err == nil {
			err = ErrOrderExists
		}
		return fmt.Errorf("order %s: %w", o.Hash, err)
	}
	return tx.putOrder(nil, &stored{Order: o})
}

// MarkSent records that the order is being handed to the exchange
// (Intent → Sent; Sent again is a no-op apart from UpdatedAt). SentAt keeps
// the first time.
func (tx *Tx) MarkSent(hash string, now time.Time) error {
	return tx.change(hash, Sent, nil, "", "", now)
}

// ApplyResult records the exchange's answer about an order: a placement
// result, an order read during reconciliation, or a cancel. exchangeID is
// recorded (and indexed) when not empty; an order's exchange id never
// changes. sizeMatched is the cumulative size matched: it may not shrink nor
// exceed the size. errMsg, when not empty, becomes LastError.
//
// The state must be reachable by CanTransition and agree with sizeMatched:
// Live and Failed have nothing matched; PartiallyFilled has some but not
// all; Filled with sizeMatched zero records the whole size as matched.
func (tx *Tx) ApplyResult(hash, exchangeID string, st OrderState, sizeMatched decimal.Decimal, errMsg string, now time.Time) error {
	return tx.change(hash, st, &sizeMatched, exchangeID, errMsg, now)
}

// SetState moves an order to st without new exchange data (for example
// Failed when reconciliation finds an intent never reached the exchange).
// The same rules as ApplyResult apply, against the recorded size matched.
func (tx *Tx) SetState(hash string, st OrderState, now time.Time) error {
	return tx.change(hash, st, nil, "", "", now)
}

// change is the one path by which an existing order's state moves.
func (tx *Tx) change(hash string, st OrderState, sizeMatched *decimal.Decimal, exchangeID, errMsg string, now time.Time) error {
	if err := tx.writable(); err != nil {
		return err
	}
	prev, err := tx.load(hash, false)
	if err != nil {
		return err
	}
	if err := checkTransition(hash, prev.State, st); err != nil {
		return err
	}
	o := *prev
	o.State = st
	if exchangeID != "" {
		o.ExchangeID = exchangeID
	}
	if st == Filled && (sizeMatched == nil || sizeMatched.IsZero()) {
		sizeMatched = &o.Size // filled means the whole size matched
	}
	if sizeMatched != nil {
		if sizeMatched.LessThan(prev.SizeMatched) {
			return fmt.Errorf("order %s: size matched %s below recorded %s: %w", hash, sizeMatched, prev.SizeMatched, ErrInvalid)
		}
		o.SizeMatched = *sizeMatched
	}
	bad := func(why string) error {
		return fmt.Errorf("order %s: %s needs %s, size matched is %s of %s: %w", hash, st, why, o.SizeMatched, o.Size, ErrInvalid)
	}
	switch st {
	case Live, Failed:
		if !o.SizeMatched.IsZero() {
			return bad("nothing matched")
		}
	case PartiallyFilled:
		if !o.SizeMatched.IsPositive() || !o.SizeMatched.LessThan(o.Size) {
			return bad("part matched")
		}
	}
	if errMsg != "" {
		o.LastError = errMsg
	}
	if st != Intent && o.SentAt.IsZero() {
		o.SentAt = now
	}
	o.UpdatedAt = now
	return tx.putOrder(prev, &o)
}

// AddFill records a fill and folds it into its token's position. It returns
// false, and changes nothing, when a fill with the same ID is already
// recorded (whatever its other fields). A fill not marked External must name
// a journaled order of the same token and side. A position-rule violation
// (ErrOversell) is returned as an error, failing the transaction.
func (tx *Tx) AddFill(f Fill) (bool, error) {
	if err := tx.writable(); err != nil {
		return false, err
	}
	if err := f.validate(); err != nil {
		return false, err
	}
	ids := tx.bucket(bucketFillIDs)
	if ids.Get(cstrKey(f.ID)) != nil {
		return false, nil
	}
	var via *stored // the order f names, when its record can stand for f's
	if f.OrderHash != "" {
		o, err := tx.load(f.OrderHash, false)
		switch {
		case err != nil && !f.External:
			return false, fmt.Errorf("fill %s: %w (mark fills of unknown orders External)", f.ID, err)
		case err == nil && (o.TokenID != f.TokenID || o.Side != f.Side):
			return false, fmt.Errorf("fill %s: token %s %s, order %s is token %s %s: %w",
				f.ID, f.TokenID, f.Side, o.Hash, o.TokenID, o.Side, ErrInvalid)
		case err == nil:
			if !o.hasFills { // an order with a fill is never pruned
				next := *o
				next.hasFills = true
				if err := tx.putOrder(o, &next); err != nil {
					return false, err
				}
				o = &next
			}
			if o.ConditionID == f.ConditionID {
				via = o
			}
		}
	}
	pos, err := tx.position(f.TokenID)
	if err != nil {
		return false, err
	}
	if err := pos.Apply(&f); err != nil {
		return false, err
	}
	fills := tx.bucket(bucketFills)
	seq, err := fills.NextSequence()
	if err != nil {
		return false, err
	}
	f.Seq = seq
	raw := encodeFill(&f, via)
	praw, err := json.Marshal(pos)
	if err != nil {
		return false, fmt.Errorf("position %s: encode: %w", f.TokenID, err)
	}
	for _, put := range []struct {
		name   []byte
		k, v   []byte
		inKeys bool // keys arrive in key order
	}{
		{bucketFills, seqKey(seq), raw, true},
		{bucketFillIDs, cstrKey(f.ID), seqKey(seq), false},
		{bucketFillsByTime, fillTimeKey(f.Time, seq), []byte{}, true},
		{bucketPositions, []byte(f.TokenID), praw, false},
	} {
		b := tx.bucket(put.name)
		if put.inKeys {
			b.FillPercent = appendFill
		}
		if err := b.Put(put.k, put.v); err != nil {
			return false, err
		}
	}
	return true, nil
}

// SetMeta stores a free-form value under key in the meta bucket (for the
// daemon's own bookkeeping, such as the last trade cursor). The keys the
// store manages (schema_version, account, rate_spent) are ErrReservedMeta.
func (tx *Tx) SetMeta(key, value string) error {
	if err := tx.writable(); err != nil {
		return err
	}
	k := []byte(key)
	switch {
	case key == "" || len(key) > maxKeyLen:
		return fmt.Errorf("meta key %q: %w", key, ErrInvalid)
	case bytes.Equal(k, keySchemaVersion) || bytes.Equal(k, keyAccount) || bytes.Equal(k, keyRateSpent):
		return fmt.Errorf("meta key %q: %w", key, ErrReservedMeta)
	}
	return tx.bucket(bucketMeta).Put(k, []byte(value))
}

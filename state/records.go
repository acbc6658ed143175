package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// The records of schema 3: orders, fills and signed items, built from the
// primitives of codec.go.

// encodeOrder is the record of o, without its signed item (stored apart,
// and only while it may still be needed); its condition and token ids are
// stored as numbers (names.go).
func (tx *Tx) encodeOrder(o *stored) ([]byte, error) {
	cond, err := tx.nameID(o.ConditionID)
	if err != nil {
		return nil, err
	}
	tok, err := tx.nameID(o.TokenID)
	if err != nil {
		return nil, err
	}
	b := tx.buf()
	var flags byte
	if o.hasFills {
		flags |= ordHasFills
	}
	if o.ExchangeID != "" && o.ExchangeID == o.Hash {
		flags |= ordXIDIsHash
	}
	if o.SentAt.IsZero() {
		flags |= ordNoSentAt
	}
	if o.UpdatedAt.IsZero() {
		flags |= ordNoUpdatedAt
	}
	whole := o.SizeMatched.Equal(o.Size) && o.SizeMatched.String() == o.Size.String()
	if whole {
		flags |= ordMatchedWhole
	}
	b = append(b, recFormat, flags)
	b = appendCstr(b, o.Hash)
	if flags&ordXIDIsHash == 0 {
		b = appendCstr(b, o.ExchangeID)
	}
	b = binary.AppendUvarint(b, cond)
	b = binary.AppendUvarint(b, tok)
	b = binary.AppendVarint(b, int64(o.Outcome))
	b = appendEnum(b, string(o.Side), sideNames)
	b = appendDec(b, o.Price)
	b = appendDec(b, o.Size)
	if !whole {
		b = appendDec(b, o.SizeMatched)
	}
	b = appendEnum(b, string(o.OrderType), typeNames)
	b = appendEnum(b, string(o.State), stateNames)
	b = appendCstr(b, o.Salt)
	// CreatedAt is never zero (validate); the others are deltas from it.
	b = appendTime(b, o.CreatedAt)
	if !o.SentAt.IsZero() {
		b = binary.AppendVarint(b, o.SentAt.Sub(o.CreatedAt).Nanoseconds())
	}
	if !o.UpdatedAt.IsZero() {
		b = binary.AppendVarint(b, o.UpdatedAt.Sub(o.CreatedAt).Nanoseconds())
	}
	return tx.keep(appendStr(b, o.LastError)), nil
}

func (tx *Tx) decodeOrder(raw []byte, o *stored) error {
	r := reader{b: raw}
	if v := r.byte(); r.err == nil && v != recFormat {
		return fmt.Errorf("order record format %d: %w", v, ErrInvalid)
	}
	flags := r.byte()
	o.hasFills = flags&ordHasFills != 0
	o.Hash = r.cstr()
	if flags&ordXIDIsHash != 0 {
		o.ExchangeID = o.Hash
	} else {
		o.ExchangeID = r.cstr()
	}
	cond, tok := r.uvarint(), r.uvarint()
	o.Outcome = int(r.varint())
	o.Side = exchange.Side(r.enum(sideNames))
	o.Price = r.dec()
	o.Size = r.dec()
	if flags&ordMatchedWhole != 0 {
		o.SizeMatched = o.Size
	} else {
		o.SizeMatched = r.dec()
	}
	o.OrderType = exchange.OrderType(r.enum(typeNames))
	o.State = OrderState(r.enum(stateNames))
	o.Salt = r.cstr()
	o.CreatedAt = r.time()
	o.SentAt = time.Time{}
	if flags&ordNoSentAt == 0 {
		o.SentAt = o.CreatedAt.Add(time.Duration(r.varint()))
	}
	o.UpdatedAt = time.Time{}
	if flags&ordNoUpdatedAt == 0 {
		o.UpdatedAt = o.CreatedAt.Add(time.Duration(r.varint()))
	}
	o.LastError = r.str()
	if err := r.done(); err != nil {
		return err
	}
	var err error
	if o.ConditionID, err = tx.name(cond); err != nil {
		return err
	}
	o.TokenID, err = tx.name(tok)
	return err
}

// encodeFill is the record of f. via, when not nil, is the order f names,
// stored under seq orderSeq, whose hash, condition, token and side are f's:
// the record then names the order by seq instead of repeating them.
func encodeFill(f *Fill, via *stored) []byte {
	b := make([]byte, 0, 96)
	var flags byte
	if f.External {
		flags |= fillExternal
	}
	if f.Short {
		flags |= fillShort
	}
	if via != nil {
		flags |= fillViaOrder
	}
	if f.Reversal {
		flags |= fillReversal
	}
	b = append(b, recFormat, flags)
	b = appendCstr(b, f.ID)
	if via != nil {
		b = binary.AppendUvarint(b, via.seq)
	} else {
		b = appendCstr(b, f.OrderHash)
		b = appendCstr(b, f.ConditionID)
		b = appendCstr(b, f.TokenID)
		b = appendStr(b, string(f.Side))
	}
	b = appendDec(b, f.Price)
	b = appendDec(b, f.Size)
	b = appendDec(b, f.Fee)
	return appendTime(b, f.Time)
}

// decodeFill decodes a fill record; orderSeq is the seq of the order it
// names by seq (zero when it names none that way): the caller fills in the
// order's hash, condition, token and side.
func decodeFill(raw []byte, f *Fill) (orderSeq uint64, err error) {
	r := reader{b: raw}
	if v := r.byte(); r.err == nil && v != recFormat {
		return 0, fmt.Errorf("fill record format %d: %w", v, ErrInvalid)
	}
	flags := r.byte()
	f.External = flags&fillExternal != 0
	f.Short = flags&fillShort != 0
	f.Reversal = flags&fillReversal != 0
	f.ID = r.cstr()
	if flags&fillViaOrder != 0 {
		orderSeq = r.uvarint()
		if r.err == nil && orderSeq == 0 {
			r.fail(errors.New("order seq 0"))
		}
	} else {
		f.OrderHash = r.cstr()
		f.ConditionID = r.cstr()
		f.TokenID = r.cstr()
		f.Side = exchange.Side(r.str())
	}
	f.Price = r.dec()
	f.Size = r.dec()
	f.Fee = r.dec()
	f.Time = r.time()
	return orderSeq, r.done()
}

// encodeItem is the record of a signed placement item, without its owner
// (the API key, never stored). Its token and condition ids are numbers, as
// in the order record.
func (tx *Tx) encodeItem(it *exchange.PlacementItem) ([]byte, error) {
	o := &it.Order
	cond, err := tx.nameID(o.ConditionID)
	if err != nil {
		return nil, err
	}
	tok, err := tx.nameID(o.TokenID)
	if err != nil {
		return nil, err
	}
	b := tx.buf()
	b = append(b, recFormat)
	for _, s := range []string{o.Salt, o.Maker, o.Signer} {
		b = appendCstr(b, s)
	}
	b = binary.AppendUvarint(b, tok)
	b = binary.AppendUvarint(b, cond)
	for _, s := range []string{o.MakerAmount, o.TakerAmount} {
		b = appendCstr(b, s)
	}
	b = appendEnum(b, string(o.Side), sideNames)
	b = binary.AppendVarint(b, int64(o.SignatureType))
	for _, s := range []string{o.Timestamp, o.Metadata, o.Builder, o.Signature} {
		b = appendCstr(b, s)
	}
	return tx.keep(appendEnum(b, string(it.OrderType), typeNames)), nil
}

func (tx *Tx) decodeItem(raw []byte, it *exchange.PlacementItem) error {
	r := reader{b: raw}
	if v := r.byte(); r.err == nil && v != recFormat {
		return fmt.Errorf("item record format %d: %w", v, ErrInvalid)
	}
	o := &it.Order
	o.Salt, o.Maker, o.Signer = r.cstr(), r.cstr(), r.cstr()
	tok, cond := r.uvarint(), r.uvarint()
	o.MakerAmount, o.TakerAmount = r.cstr(), r.cstr()
	o.Side = exchange.Side(r.enum(sideNames))
	o.SignatureType = int(r.varint())
	o.Timestamp, o.Metadata, o.Builder, o.Signature = r.cstr(), r.cstr(), r.cstr(), r.cstr()
	it.OrderType = exchange.OrderType(r.enum(typeNames))
	it.Owner = ""
	if err := r.done(); err != nil {
		return err
	}
	var err error
	if o.TokenID, err = tx.name(tok); err != nil {
		return err
	}
	o.ConditionID, err = tx.name(cond)
	return err
}

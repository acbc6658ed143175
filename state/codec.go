package state

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// The binary records of schema 3. Every record starts with a format byte;
// strings that are hashes, hex ids or uint256 token ids are stored as their
// bytes (cstr), so that a 66-character order hash takes 33 bytes. Decimals
// are stored as their exact string; times as Unix nanoseconds (zero: unset),
// read back in UTC.

const (
	recFormat = 1

	cstrRaw    = 0 // uvarint length, bytes
	cstrHex    = 1 // "0x" + lower-case hex of an even length
	cstrDigits = 2 // a decimal integer without leading zeros (a uint256 token id)
	cstrDHex   = 3 // "d:" + lower-case hex (a derived fill id)
	cstrUint   = 4 // a decimal integer without leading zeros below 2^64 (a salt): uvarint

	// maxDigits bounds the decimal integers stored as numbers; longer ones
	// are stored raw.
	maxDigits = 80

	// order record flags
	ordHasFills     = 1 << 0 // some fill names this order: never pruned
	ordXIDIsHash    = 1 << 1 // the exchange id equals the hash (not stored twice)
	ordNoSentAt     = 1 << 2 // SentAt is unset (else stored as a delta from CreatedAt)
	ordMatchedWhole = 1 << 3 // SizeMatched equals Size (not stored twice)
	ordNoUpdatedAt  = 1 << 4 // UpdatedAt is unset

	// fill record flags
	fillExternal = 1 << 0
	fillShort    = 1 << 1
	fillViaOrder = 1 << 2 // hash, condition, token and side are the order's, named by its seq
)

var errTruncated = errors.New("record truncated")

// appendCstr appends s in its most compact form; decoding gives s back
// byte for byte.
func appendCstr(b []byte, s string) []byte {
	for _, p := range [...]struct {
		prefix string
		tag    byte
	}{{"0x", cstrHex}, {"d:", cstrDHex}} {
		if rest, ok := strings.CutPrefix(s, p.prefix); ok && len(rest) > 0 && len(rest)%2 == 0 && isLowerHex(rest) {
			b = append(b, p.tag)
			b = binary.AppendUvarint(b, uint64(len(rest)/2))
			n := len(b)
			b = append(b, make([]byte, len(rest)/2)...)
			_, _ = hex.Decode(b[n:], []byte(rest)) // checked by isLowerHex
			return b
		}
	}
	if n := len(s); n > 0 && n <= maxDigits && (s[0] != '0' || n == 1) && isDigits(s) {
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return binary.AppendUvarint(append(b, cstrUint), u)
		}
		var v big.Int
		v.SetString(s, 10)
		raw := v.Bytes()
		b = append(b, cstrDigits)
		b = binary.AppendUvarint(b, uint64(len(raw)))
		return append(b, raw...)
	}
	b = append(b, cstrRaw)
	return appendStr(b, s)
}

// isLowerHex reports whether s is lower-case hex digits only, so that
// hex.EncodeToString gives it back.
func isLowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// cstrKey is the compact form of s as an index key.
func cstrKey(s string) []byte { return appendCstr(make([]byte, 0, len(s)/2+4), s) }

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendDec stores a decimal as its coefficient and exponent (both
// varints) when the coefficient fits an int64, else as its string: either
// way decoding gives the same coefficient and exponent back.
func appendDec(b []byte, d decimal.Decimal) []byte {
	if c := d.Coefficient(); c.IsInt64() {
		b = append(b, 1)
		b = binary.AppendVarint(b, c.Int64())
		return binary.AppendVarint(b, int64(d.Exponent()))
	}
	return appendStr(append(b, 0), d.String())
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(b, 0)
	}
	return binary.AppendVarint(b, t.UnixNano())
}

// The values of the few-valued fields, stored as their index + 1 (zero:
// another value, stored as a string after it).
var (
	sideNames  = []string{string(exchange.Buy), string(exchange.Sell)}
	typeNames  = []string{string(exchange.GTC), string(exchange.GTD), string(exchange.FOK), string(exchange.FAK)}
	stateNames = func() []string {
		out := make([]string, len(allStates))
		for i, s := range allStates {
			out[i] = string(s)
		}
		return out
	}()
)

func appendEnum(b []byte, s string, names []string) []byte {
	for i, n := range names {
		if n == s {
			return append(b, byte(i+1))
		}
	}
	return appendStr(append(b, 0), s)
}

// reader decodes one record; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.fail(errTruncated)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errTruncated)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errTruncated)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.fail(errTruncated)
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) str() string { return string(r.bytes()) }

func (r *reader) enum(names []string) string {
	i := int(r.byte())
	switch {
	case r.err != nil:
		return ""
	case i == 0:
		return r.str()
	case i <= len(names):
		return names[i-1]
	}
	r.fail(fmt.Errorf("value %d of %d", i, len(names)))
	return ""
}

func (r *reader) cstr() string {
	tag := r.byte()
	if tag == cstrUint {
		return strconv.FormatUint(r.uvarint(), 10)
	}
	raw := r.bytes()
	if r.err != nil {
		return ""
	}
	switch tag {
	case cstrRaw:
		return string(raw)
	case cstrHex:
		return "0x" + hex.EncodeToString(raw)
	case cstrDHex:
		return "d:" + hex.EncodeToString(raw)
	case cstrDigits:
		return new(big.Int).SetBytes(raw).String()
	}
	r.fail(fmt.Errorf("string tag %d", tag))
	return ""
}

func (r *reader) dec() decimal.Decimal {
	if r.byte() == 1 {
		c, e := r.varint(), r.varint()
		if r.err != nil || e < math.MinInt32 || e > math.MaxInt32 {
			r.fail(errTruncated)
			return decimal.Zero
		}
		return decimal.New(c, int32(e))
	}
	s := r.bytes()
	if r.err != nil {
		return decimal.Zero
	}
	d, err := decimal.NewFromString(string(s))
	if err != nil {
		r.fail(err)
	}
	return d
}

func (r *reader) time() time.Time {
	n := r.varint()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func (r *reader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d trailing bytes", len(r.b)))
	}
	return r.err
}

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
	b := make([]byte, 0, 128)
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
	return appendStr(b, o.LastError), nil
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
	b := make([]byte, 0, 160)
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
	return appendEnum(b, string(it.OrderType), typeNames), nil
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

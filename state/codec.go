package state

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
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

	// maxDigits bounds the decimal integers stored as numbers; longer ones
	// are stored raw.
	maxDigits = 80

	// order record flags
	ordHasFills  = 1 << 0 // some fill names this order: never pruned
	ordXIDIsHash = 1 << 1 // the exchange id equals the hash (not stored twice)

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

func appendDec(b []byte, d decimal.Decimal) []byte { return appendStr(b, d.String()) }

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(b, 0)
	}
	return binary.AppendVarint(b, t.UnixNano())
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

func (r *reader) cstr() string {
	tag := r.byte()
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
// and only while it may still be needed).
func encodeOrder(o *stored) []byte {
	b := make([]byte, 0, 192)
	var flags byte
	if o.hasFills {
		flags |= ordHasFills
	}
	if o.ExchangeID != "" && o.ExchangeID == o.Hash {
		flags |= ordXIDIsHash
	}
	b = append(b, recFormat, flags)
	b = appendCstr(b, o.Hash)
	if flags&ordXIDIsHash == 0 {
		b = appendCstr(b, o.ExchangeID)
	}
	b = appendCstr(b, o.ConditionID)
	b = appendCstr(b, o.TokenID)
	b = binary.AppendVarint(b, int64(o.Outcome))
	b = appendStr(b, string(o.Side))
	b = appendDec(b, o.Price)
	b = appendDec(b, o.Size)
	b = appendDec(b, o.SizeMatched)
	b = appendStr(b, string(o.OrderType))
	b = appendStr(b, string(o.State))
	b = appendCstr(b, o.Salt)
	b = appendTime(b, o.CreatedAt)
	b = appendTime(b, o.SentAt)
	b = appendTime(b, o.UpdatedAt)
	return appendStr(b, o.LastError)
}

func decodeOrder(raw []byte, o *stored) error {
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
	o.ConditionID = r.cstr()
	o.TokenID = r.cstr()
	o.Outcome = int(r.varint())
	o.Side = exchange.Side(r.str())
	o.Price = r.dec()
	o.Size = r.dec()
	o.SizeMatched = r.dec()
	o.OrderType = exchange.OrderType(r.str())
	o.State = OrderState(r.str())
	o.Salt = r.cstr()
	o.CreatedAt = r.time()
	o.SentAt = r.time()
	o.UpdatedAt = r.time()
	o.LastError = r.str()
	return r.done()
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

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
	fillReversal = 1 << 3 // the fill takes back a failed trade's fill (schema 4)
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

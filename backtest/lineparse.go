package backtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// This file is the Reader's line decoder: a small JSON scanner specialised to
// event lines. It decodes the known fields straight into their types
// (decimals through Fixed, without text-to-big-number conversion) and skips
// unknown fields, which is several times faster than encoding/json with
// reflection. It accepts a subset of what encoding/json accepts for the same
// target (keys match exactly, not case-insensitively); the tests check by
// differential fuzzing that whatever it accepts, encoding/json decodes to the
// same event.

// maxDepth bounds the nesting of skipped values.
const maxDepth = 1000

var errSyntax = errors.New("invalid JSON")

type scanner struct {
	b     []byte
	i     int
	cache *decimalCache // nil: no cache
}

// decimalCache shares the decimal.Decimal of values seen before. Prices
// repeat on the tick grid and many sizes repeat, and a decimal costs two
// allocations to build; decimals are immutable, so sharing is safe. The
// cache is bounded: when full it starts over.
type decimalCache struct {
	m map[Fixed]decimal.Decimal
}

const decimalCacheSize = 1 << 14

func (c *decimalCache) get(f Fixed) decimal.Decimal {
	if d, ok := c.m[f]; ok {
		return d
	}
	if c.m == nil || len(c.m) >= decimalCacheSize {
		c.m = make(map[Fixed]decimal.Decimal, 1024)
	}
	d := fixedDecimal(f)
	c.m[f] = d
	return d
}

func (s *scanner) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errSyntax, what, s.i)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return s.fail(fmt.Sprintf("want %q", c))
	}
	s.i++
	return nil
}

// literal consumes null, true or false.
func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// null consumes a null if one is next.
func (s *scanner) null() bool {
	return s.peek() == 'n' && s.literal("null")
}

// rawString returns the bytes of the next string without its quotes, and
// whether it needs unescaping (escapes, or bytes that are not plain UTF-8).
func (s *scanner) rawString() ([]byte, bool, error) {
	if s.peek() != '"' {
		return nil, false, s.fail("want a string")
	}
	s.i++
	start := s.i
	slow := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if slow || !utf8.Valid(raw) {
				return raw, true, nil
			}
			return raw, false, nil
		case c == '\\':
			slow = true
			s.i += 2
		case c < 0x20:
			return nil, false, s.fail("control character in string")
		default:
			s.i++
		}
	}
	return nil, false, s.fail("unterminated string")
}

// str decodes the next string.
func (s *scanner) str() (string, error) {
	start := s.i
	raw, slow, err := s.rawString()
	if err != nil || !slow {
		return string(raw), err
	}
	var out string
	if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
		return "", fmt.Errorf("%w: %v", errSyntax, err)
	}
	return out, nil
}

// number returns the bytes of the next JSON number, checked against the
// JSON grammar.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	intStart := s.i
	if digits() == 0 || s.b[intStart] == '0' && s.i-intStart > 1 {
		return nil, s.fail("bad number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil, s.fail("bad number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, s.fail("bad number")
		}
	}
	return s.b[start:s.i], nil
}

// skip consumes any JSON value.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.fail("nesting too deep")
	}
	switch c := s.peek(); {
	case c == '"':
		_, _, err := s.rawString()
		return err
	case c == '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			return nil
		}
		for {
			if _, _, err := s.rawString(); err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if s.peek() == ',' {
				s.i++
				continue
			}
			return s.expect('}')
		}
	case c == '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if s.peek() == ',' {
				s.i++
				continue
			}
			return s.expect(']')
		}
	case c == 't':
		if s.literal("true") {
			return nil
		}
	case c == 'f':
		if s.literal("false") {
			return nil
		}
	case c == 'n':
		if s.literal("null") {
			return nil
		}
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.number()
		return err
	}
	return s.fail("want a value")
}

// object calls field for each key of an object; field must consume the
// value.
func (s *scanner) object(field func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, slow, err := s.rawString()
		if err != nil {
			return err
		}
		if slow {
			// An escaped key matches no field of ours exactly; json would
			// unescape it, so leave such lines to be rejected.
			return s.fail("escaped key")
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		if s.peek() == ',' {
			s.i++
			continue
		}
		return s.expect('}')
	}
}

// decimal decodes a decimal given as a string or a number. Values that are
// not exact in Fixed units are errors (the format allows 6 decimals).
func (s *scanner) decimal() (decimal.Decimal, error) {
	if s.null() {
		return decimal.Decimal{}, nil
	}
	var raw []byte
	var err error
	if s.peek() == '"' {
		var slow bool
		if raw, slow, err = s.rawString(); err == nil && slow {
			err = s.fail("escaped decimal")
		}
	} else {
		raw, err = s.number()
	}
	if err != nil {
		return decimal.Decimal{}, err
	}
	f, ok := parseFixedFast(raw)
	if !ok {
		d, err := decimal.NewFromString(string(raw))
		if err != nil {
			return decimal.Decimal{}, fmt.Errorf("decimal %q: %w", raw, err)
		}
		if f, err = FixedFromDecimal(d); err != nil {
			return decimal.Decimal{}, err
		}
	}
	if s.cache != nil {
		return s.cache.get(f), nil
	}
	return fixedDecimal(f), nil
}

// fixedDecimal returns f as a decimal with no trailing fractional zeros in
// its representation (0.01 has exponent −2, as if parsed from "0.01").
func fixedDecimal(f Fixed) decimal.Decimal {
	v, exp := int64(f), int32(-fixedDigits)
	for exp < 0 && v%10 == 0 {
		v /= 10
		exp++
	}
	if v == 0 {
		exp = 0
	}
	return decimal.New(v, exp)
}

// parseFixedFast parses [-]digits[.digits] with at most 6 fractional digits
// and 12 integer digits; false for anything else (left to the slow path).
func parseFixedFast(b []byte) (Fixed, bool) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		neg, i = true, 1
	}
	var v int64
	intDigits, fracDigits := 0, -1
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			if fracDigits >= 0 {
				if fracDigits == fixedDigits {
					return 0, false
				}
				fracDigits++
			} else if intDigits++; intDigits > 12 {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		case c == '.' && fracDigits < 0:
			fracDigits = 0
		default:
			return 0, false
		}
	}
	if intDigits == 0 && fracDigits <= 0 {
		return 0, false
	}
	if fracDigits < 0 {
		fracDigits = 0
	}
	v *= pow10[fixedDigits-fracDigits]
	if neg {
		v = -v
	}
	return Fixed(v), true
}

// int64Value decodes an integer number (null is 0).
func (s *scanner) int64Value() (int64, error) {
	if s.null() {
		return 0, nil
	}
	raw, err := s.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("integer %q: %w", raw, err)
	}
	return n, nil
}

func (s *scanner) boolValue() (bool, error) {
	switch {
	case s.null():
		return false, nil
	case s.peek() == 't' && s.literal("true"):
		return true, nil
	case s.peek() == 'f' && s.literal("false"):
		return false, nil
	}
	return false, s.fail("want a boolean")
}

// levels decodes an array of {price, size} (null is none).
func (s *scanner) levels() ([]exchange.PriceLevel, error) {
	if s.null() {
		return nil, nil
	}
	if err := s.expect('['); err != nil {
		return nil, err
	}
	out := make([]exchange.PriceLevel, 0, 32)
	if s.peek() == ']' {
		s.i++
		return out, nil
	}
	for {
		var l exchange.PriceLevel
		if !s.null() {
			err := s.object(func(key []byte) error {
				var err error
				switch string(key) {
				case "price":
					l.Price, err = s.decimal()
				case "size":
					l.Size, err = s.decimal()
				default:
					err = s.unknown(key, levelKeys, 1)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
		}
		out = append(out, l)
		if s.peek() == ',' {
			s.i++
			continue
		}
		return out, s.expect(']')
	}
}

// decodeLine fills w from one event line; cache may be nil.
func decodeLine(line []byte, w *wireLine, cache *decimalCache) error {
	s := scanner{b: line, cache: cache}
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "kind":
			w.Kind, err = s.optStr()
		case "token":
			w.Token, err = s.optStr()
		case "market":
			w.Market, err = s.optStr()
		case "ts_ms":
			w.TsMs, err = s.int64Value()
		case "recv_ns":
			w.RecvNs, err = s.int64Value()
		case "bids":
			w.Bids, err = s.levels()
		case "asks":
			w.Asks, err = s.levels()
		case "tick":
			w.Tick, err = s.decimal()
		case "min_size":
			w.MinSize, err = s.decimal()
		case "price":
			w.Price, err = s.decimal()
		case "size":
			w.Size, err = s.decimal()
		case "taker":
			var t string
			t, err = s.optStr()
			w.Taker = exchange.Side(t)
		case "end_date":
			w.EndDate, err = s.optStr()
		case "resolved":
			w.Resolved, err = s.boolValue()
		case "payout":
			w.Payout, err = s.decimal()
		default:
			err = s.unknown(key, lineKeys, 0)
		}
		return err
	})
	if err != nil {
		return err
	}
	if s.peek() != 0 {
		return s.fail("data after the object")
	}
	return nil
}

var (
	lineKeys = []string{"kind", "token", "market", "ts_ms", "recv_ns", "bids", "asks", "tick",
		"min_size", "price", "size", "taker", "end_date", "resolved", "payout"}
	levelKeys = []string{"price", "size"}
)

// unknown skips the value of a key we do not know. A key that differs from
// one of ours only in case is an error: encoding/json would take it for
// ours, and a recording should not depend on that.
func (s *scanner) unknown(key []byte, known []string, depth int) error {
	for _, k := range known {
		if strings.EqualFold(string(key), k) {
			return s.fail(fmt.Sprintf("key %q: did you mean %q?", key, k))
		}
	}
	return s.skip(depth)
}

// optStr decodes a string; null is "".
func (s *scanner) optStr() (string, error) {
	if s.null() {
		return "", nil
	}
	return s.str()
}

// parseEndDate parses the meta end_date field.
func parseEndDate(v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, invalid("end_date: %v", err)
	}
	return t.UTC(), nil
}

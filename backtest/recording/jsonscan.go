package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// A minimal JSON scanner for the Reader's line decoder (lineparse.go): it
// walks the bytes of one line without reflection and without building a
// generic tree.

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
// cache is bounded: a direct-mapped table, in which a value evicts the
// one before it in its slot.
type decimalCache struct {
	// grid holds the prices on the finest tick grid (multiples of 0.0001
	// in [0, 1]), the most common values, without hashing.
	grid *[gridSize]gridEntry
	// slots holds the other values, by a hash of the value.
	slots *[cacheSlots]cacheSlot
	// fxBids and fxAsks are the decoder's scratch for a book's Fixed
	// levels, reused from line to line.
	fxBids, fxAsks []Level
}

type gridEntry struct {
	d  decimal.Decimal
	ok bool
}

type cacheSlot struct {
	f  exchange.Fixed
	d  decimal.Decimal
	ok bool
}

const (
	gridStep   = exchange.FixedScale / 10_000
	gridSize   = 10_001
	cacheBits  = 13
	cacheSlots = 1 << cacheBits
)

// init allocates the tables, for fast.
func (c *decimalCache) init() {
	if c.grid == nil {
		c.grid = new([gridSize]gridEntry)
	}
	if c.slots == nil {
		c.slots = new([cacheSlots]cacheSlot)
	}
}

// fast returns f's decimal when the cache has it (after init); it is small
// enough to be inlined in the decoders' loops.
func (c *decimalCache) fast(f exchange.Fixed) (decimal.Decimal, bool) {
	if u := uint64(f); u <= exchange.FixedScale {
		if q := u / gridStep; q*gridStep == u {
			e := &c.grid[q]
			return e.d, e.ok
		}
	}
	s := &c.slots[uint64(f)*0x9E3779B97F4A7C15>>(64-cacheBits)]
	return s.d, s.ok && s.f == f
}

func (c *decimalCache) get(f exchange.Fixed) decimal.Decimal {
	if f >= 0 && f <= exchange.FixedScale && f%gridStep == 0 {
		if c.grid == nil {
			c.grid = new([gridSize]gridEntry)
		}
		e := &c.grid[f/gridStep]
		if !e.ok {
			e.d, e.ok = f.Decimal(), true
		}
		return e.d
	}
	if c.slots == nil {
		c.slots = new([cacheSlots]cacheSlot)
	}
	// Fibonacci hashing: the top bits of the product spread nearby values.
	s := &c.slots[uint64(f)*0x9E3779B97F4A7C15>>(64-cacheBits)]
	if !s.ok || s.f != f {
		s.f, s.d, s.ok = f, f.Decimal(), true
	}
	return s.d
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
	slow, ascii := false, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if slow || !ascii && !utf8.Valid(raw) {
				return raw, true, nil
			}
			return raw, false, nil
		case c == '\\':
			slow = true
			s.i += 2
		case c < 0x20:
			return nil, false, s.fail("control character in string")
		default:
			ascii = ascii && c < utf8.RuneSelf
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

// unknown skips the value of a key we do not know. A key that differs from
// one of ours only in case is an error: encoding/json would take it for
// ours, and a recording should not depend on that.
func (s *scanner) unknown(key []byte, depth int, known ...string) error {
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

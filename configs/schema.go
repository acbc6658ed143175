package configs

import (
	"encoding"
	"reflect"
	"sort"
	"strings"
)

// leaf is one settable key of the configuration.
type leaf struct {
	key   string       // dotted key, e.g. "exchange.limits.fill"
	index []int        // field index path from Config
	typ   reflect.Type // Go type of the field
}

// schema is the set of keys of Config, derived from its koanf tags, so that
// the key list can never drift from the struct.
type schema struct {
	leaves   map[string]*leaf
	sections map[string]bool   // "exchange", "exchange.limits", ...
	order    []string          // leaf keys in declaration order
	flat     map[string]string // "exchange_clob_url" -> "exchange.clob_url"
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// isSection reports whether t is a struct whose fields are keys of their
// own, as opposed to a struct value such as decimal.Decimal or secret.Value
// that is written as one string.
func isSection(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(textUnmarshaler)
}

func newSchema() *schema {
	s := &schema{leaves: map[string]*leaf{}, sections: map[string]bool{}, flat: map[string]string{}}
	s.walk(reflect.TypeFor[Config](), "", nil)
	return s
}

func (s *schema) walk(t reflect.Type, prefix string, index []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("koanf")
		if name == "" || !f.IsExported() {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		idx := append(append([]int(nil), index...), i)
		if isSection(f.Type) {
			s.sections[key] = true
			s.walk(f.Type, key, idx)
			continue
		}
		s.leaves[key] = &leaf{key: key, index: idx, typ: f.Type}
		s.order = append(s.order, key)
		s.flat[strings.ReplaceAll(key, ".", "_")] = key
	}
}

// fieldsOf returns the koanf-tagged fields of a struct element type (the
// tables of an array of tables), by key.
func fieldsOf(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("koanf"); name != "" {
			out[name] = i
		}
	}
	return out
}

// Keys returns every key of the configuration in declaration order, e.g.
// "exchange.limits.post_order_burst.requests".
func Keys() []string {
	return append([]string(nil), newSchema().order...)
}

// suggest returns the known key closest to an unknown one, or "" when none
// is close enough to be a plausible typo.
func (s *schema) suggest(key string) string {
	best, bestD := "", len(key)/3+1
	keys := make([]string, 0, len(s.leaves))
	for k := range s.leaves {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

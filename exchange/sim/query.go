package sim

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// paramError is a bad query parameter; msg is the whole error text.
type paramError struct{ msg string }

func (p *paramError) Error() string { return p.msg }

// query reads query parameters with the data API's rules: an unknown
// parameter is "unknown_field: <name>", a missing required one
// "missing_field: <name>", a value breaking its rule
// "invalid_field: <name>: <rule>".
type query struct {
	v   url.Values
	err error
}

// newQuery checks that every parameter is one of allowed (pass nil to
// allow anything).
func newQuery(v url.Values, allowed ...string) *query {
	q := &query{v: v}
	if allowed == nil {
		return q
	}
	names := make([]string, 0, len(v))
	for k := range v {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			q.err = &paramError{"unknown_field: " + k}
			return q
		}
	}
	return q
}

func (q *query) fail(format string, a ...any) {
	if q.err == nil {
		q.err = &paramError{fmt.Sprintf(format, a...)}
	}
}

// has reports whether the parameter was sent.
func (q *query) has(name string) bool {
	_, ok := q.v[name]
	return ok
}

func (q *query) str(name string) string { return q.v.Get(name) }

// intRange reads an integer in [lo, hi] (hi < lo: no upper bound).
func (q *query) intRange(name string, def, lo, hi int) int {
	if !q.has(name) {
		return def
	}
	n, err := strconv.Atoi(q.v.Get(name))
	if err != nil || n < lo || (hi >= lo && n > hi) {
		if hi >= lo {
			q.fail("invalid_field: %s: must be an integer from %d to %d", name, lo, hi)
		} else {
			q.fail("invalid_field: %s: must be an integer >= %d", name, lo)
		}
		return def
	}
	return n
}

// boolean reads true or false.
func (q *query) boolean(name string, def bool) (bool, bool) {
	if !q.has(name) {
		return def, false
	}
	b, err := strconv.ParseBool(q.v.Get(name))
	if err != nil {
		q.fail("invalid_field: %s: must be true or false", name)
		return def, false
	}
	return b, true
}

// nonNegative reads a decimal >= 0.
func (q *query) nonNegative(name string, def decimal.Decimal) (decimal.Decimal, bool) {
	if !q.has(name) {
		return def, false
	}
	d, err := decimal.NewFromString(q.v.Get(name))
	if err != nil || d.IsNegative() {
		q.fail("invalid_field: %s: must be a number >= 0", name)
		return def, false
	}
	return d, true
}

// enum reads one of allowed (case-sensitive).
func (q *query) enum(name, def string, allowed ...string) string {
	if !q.has(name) {
		return def
	}
	v := q.v.Get(name)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	q.fail("invalid_field: %s: must be one of %s", name, strings.Join(allowed, ", "))
	return def
}

// list reads a comma-separated array (lower-cased when lower).
func (q *query) list(name string, required, lower bool) []string {
	if !q.has(name) || q.v.Get(name) == "" {
		if required {
			q.fail("missing_field: %s", name)
		}
		return nil
	}
	var out []string
	for _, s := range strings.Split(q.v.Get(name), ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			q.fail("invalid_field: %s: items must not be empty", name)
			return nil
		}
		if lower {
			s = strings.ToLower(s)
		}
		out = append(out, s)
	}
	return out
}

// required reads a non-empty string.
func (q *query) required(name string) string {
	v := q.v.Get(name)
	if v == "" {
		q.fail("missing_field: %s", name)
	}
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package exchange

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Ptr returns a pointer to v, for the optional fields of the parameter
// structs: a nil field is not sent, a set one is sent even when it is zero.
func Ptr[T any](v T) *T { return &v }

// noUpper marks a range without an upper bound.
const noUpper = -1

// checkIntRange checks an optional integer against [lo, hi] (hi noUpper:
// [lo, ∞)) and adds it to q when set.
func checkIntRange(q url.Values, name string, v *int, lo, hi int) error {
	if v == nil {
		return nil
	}
	if *v < lo || (hi != noUpper && *v > hi) {
		rule := fmt.Sprintf("must be between %d and %d", lo, hi)
		if hi == noUpper {
			rule = fmt.Sprintf("must be >= %d", lo)
		}
		return &ParamError{Param: name, Value: strconv.Itoa(*v), Rule: rule}
	}
	q.Set(name, strconv.Itoa(*v))
	return nil
}

// checkList checks an array parameter (sent comma-separated) and adds it to
// q when non-empty. Items must be non-empty and free of commas.
func checkList(q url.Values, name string, items []string, required bool) error {
	if len(items) == 0 {
		if required {
			return &ParamError{Param: name, Value: "", Rule: "is required"}
		}
		return nil
	}
	for _, it := range items {
		if it == "" || strings.ContainsRune(it, ',') {
			return &ParamError{Param: name, Value: strings.Join(items, ","), Rule: "items must be non-empty and contain no comma"}
		}
	}
	q.Set(name, strings.Join(items, ","))
	return nil
}

// setBool adds an optional boolean to q.
func setBool(q url.Values, name string, v *bool) {
	if v != nil {
		q.Set(name, strconv.FormatBool(*v))
	}
}

// setString adds a non-empty string to q.
func setString(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

// oneOf checks an optional enum value.
func oneOf(name, v string, allowed ...string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return &ParamError{Param: name, Value: v, Rule: "must be one of " + strings.Join(allowed, ", ")}
}

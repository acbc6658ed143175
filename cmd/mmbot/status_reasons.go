package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mmbot/mmbot/risk"
)

// reasonCounts turns counts indexed by risk.Reason into a map by reason
// name, leaving out the reasons with no count.
func reasonCounts(a *[risk.NumReasons]int) map[string]int {
	m := map[string]int{}
	for r, n := range a {
		if n > 0 {
			m[risk.Reason(r).String()] = n
		}
	}
	return m
}

// countsList formats counts by name, largest first (then by name):
// "market_position 9, total_collateral_at_risk 3".
func countsList(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// countsSuffix is " (countsList)", or "" when there is nothing to list.
func countsSuffix(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	return " (" + countsList(m) + ")"
}

package daemon

import "github.com/mmbot/mmbot/risk"

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

package sim

import "strings"

// Resolution reports whether a market has resolved and, if so, its winning
// outcome (0 or 1). A recorder on the manual clock asks it once the clock
// has passed a market's end date, to write the resolution down.
func (e *Exchange) Resolution(conditionID string) (winner int, resolved bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.byCond[strings.ToLower(conditionID)]
	if !ok || !s.closed {
		return -1, false
	}
	return s.winner, true
}

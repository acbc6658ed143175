package strategy

// WithMinSize wraps m so that a quote smaller than the market's minimum
// order size is raised to that minimum instead of being dropped by the
// planner. A market whose minimum is above the configured size is then
// quoted at its minimum; the risk limits (order size, notional, positions)
// still bound every order. Compose it inside WithEndDate, so that the
// end-date taper can still shrink quotes below the minimum and stop them.
func WithMinSize(m Model) Model { return minSized{inner: m} }

type minSized struct{ inner Model }

// Quote implements Model.
func (w minSized) Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired {
	n := len(dst)
	dst = w.inner.Quote(dst, s, st)
	min := s.MinSize.InexactFloat64()
	for i := n; i < len(dst); i++ {
		if d := &dst[i]; d.Size > 0 && d.Size < min {
			d.Size = min
		}
	}
	return dst
}

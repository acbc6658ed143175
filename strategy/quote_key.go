package strategy

import "math"

// The models' QuoteKeyer implementations (see Quoter.Memo). A wrapper's
// key is its own part followed by its inner model's; a model that reads an
// estimator moving with time (the volatility, the intensity) has none.

// AppendQuoteKey implements QuoteKeyer: the bands read the fair value, the
// position, the locked shares and the minimum size, nothing of the state
// or the time.
func (b *Bands) AppendQuoteKey(key []uint64, _ *Snapshot, _ *MarketState) ([]uint64, bool) {
	return key, true
}

// AppendQuoteKey implements QuoteKeyer: the minimum size is the snapshot's.
func (w minSized) AppendQuoteKey(key []uint64, s *Snapshot, st *MarketState) ([]uint64, bool) {
	return quoteKey(key, w.inner, s, st)
}

// AppendQuoteKey implements QuoteKeyer. A decision held (Hold not over at
// s.Now) keys the quotes by whether it pays; a pass that decides writes
// the state, so it has no key.
func (r *rewarded) AppendQuoteKey(key []uint64, s *Snapshot, st *MarketState) ([]uint64, bool) {
	switch {
	case !r.p.Enabled, r.p.Always:
		key = append(key, 0)
	case st != nil && st.Rewards.Decided && s.Now.Sub(st.Rewards.At) < r.p.Hold:
		pays := uint64(1)
		if st.Rewards.Pays {
			pays = 2
		}
		key = append(key, pays)
	default:
		// Quote decides (and writes the state) unless the inner model
		// quotes nothing: whether it does is known only by quoting.
		return key, false
	}
	return quoteKey(key, r.inner, s, st)
}

// AppendQuoteKey implements QuoteKeyer: the rules' action at s.Now (pulled,
// paused sides, how far each side moves away).
func (w *adverse) AppendQuoteKey(key []uint64, s *Snapshot, st *MarketState) ([]uint64, bool) {
	if st != nil {
		act := w.p.Action(&st.Adverse, s)
		var pulled uint64
		switch act.Pulled {
		case "":
		case "through":
			pulled = 1
		case "jump":
			pulled = 2
		default:
			return key, false
		}
		key = append(key, pulled, boolBits(act.Paused[0])|boolBits(act.Paused[1])<<1,
			math.Float64bits(act.Away[0]), math.Float64bits(act.Away[1]))
	}
	return quoteKey(key, w.inner, s, st)
}

// AppendQuoteKey implements QuoteKeyer: the phase and the size factor at
// s.Now; a stopped market quotes nothing, whatever the inner model.
func (e *endDate) AppendQuoteKey(key []uint64, s *Snapshot, st *MarketState) ([]uint64, bool) {
	tau, ok := s.TimeToEnd()
	if !ok {
		return quoteKey(append(key, 0), e.inner, s, st)
	}
	phase, f := e.p.Phase(tau)
	key = append(key, uint64(phase)+1, math.Float64bits(f))
	if phase == PhaseStopped {
		return key, true
	}
	return quoteKey(key, e.inner, s, st)
}

func boolBits(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// AppendQuoteKey implements QuoteKeyer: the naive quoter reads the books
// of others, the tick, the position and what is sellable: the snapshot's.
func (n *Naive) AppendQuoteKey(key []uint64, _ *Snapshot, _ *MarketState) ([]uint64, bool) {
	return key, true
}

// AppendQuoteKey implements QuoteKeyer: the touch model reads what the
// naive quoter reads, and the net position for its skew.
func (m *Touch) AppendQuoteKey(key []uint64, _ *Snapshot, _ *MarketState) ([]uint64, bool) {
	return key, true
}

package replay

import (
	"slices"

	"github.com/mmbot/mmbot/exchange"
)

// newest returns the market's newest tape trade; the tape must not be empty.
func (mk *replayMarket) newest() *tapeTrade {
	return mk.tape[(mk.head-1+len(mk.tape))%len(mk.tape)]
}

// tapeAt returns the market's i-th newest tape trade (0: the newest).
func (mk *replayMarket) tapeAt(i int) *tapeTrade {
	return mk.tape[(mk.head-1-i+2*len(mk.tape))%len(mk.tape)]
}

// mergeNewest returns the newest limit trades of side (any when empty) on
// the tapes of mks, each in time order, oldest first: what a stable sort
// by time of the tapes concatenated in the order of mks would end with.
// It walks the tapes from their newest ends, taking the newest trade
// left, and on a tie the one of the later market (the stable sort puts
// it after); so it reads at most limit trades a market, and sorts
// nothing.
func mergeNewest(mks []*replayMarket, side exchange.Side, limit int) []exchange.Trade {
	picked := mergeNewestTrades(mks, side, limit, nil)
	out := make([]exchange.Trade, len(picked))
	for i, t := range picked {
		out[i] = t.tt.tr
	}
	return out
}

// mergeNewestTrades is mergeNewest's merge, appended to dst with each
// trade's market.
func mergeNewestTrades(mks []*replayMarket, side exchange.Side, limit int, dst []memoTrade) []memoTrade {
	if limit <= 0 {
		return dst
	}
	// next[i] is how many of mks[i]'s trades were passed, newest first.
	next := make([]int, len(mks))
	skip := func(i int) {
		mk := mks[i]
		for next[i] < mk.n && side != "" && mk.tapeAt(next[i]).tr.Side != side {
			next[i]++
		}
	}
	for i := range mks {
		skip(i)
	}
	start := len(dst)
	for len(dst)-start < limit {
		best := -1
		var bt *tapeTrade
		for i, mk := range mks {
			if next[i] >= mk.n {
				continue
			}
			if t := mk.tapeAt(next[i]); best < 0 || t.at.Compare(bt.at) >= 0 {
				best, bt = i, t
			}
		}
		if best < 0 {
			break
		}
		dst = append(dst, memoTrade{tt: bt, mk: best})
		next[best]++
		skip(best)
	}
	slices.Reverse(dst[start:])
	return dst
}

// push adds a trade shown to the strategy to the market's tape, the
// oldest falling off a full ring; tt.seq numbers it.
func (mk *replayMarket) push(tt *tapeTrade) {
	if mk.n > 0 && tt.at.Before(mk.newest().at) {
		mk.unsorted = true
	}
	mk.pushed++
	tt.seq = mk.pushed
	mk.tape[mk.head] = tt
	mk.head = (mk.head + 1) % len(mk.tape)
	mk.n = min(mk.n+1, len(mk.tape))
}

// onTape reports whether tt, a trade of mk, is still on its tape.
func (mk *replayMarket) onTape(tt *tapeTrade) bool {
	return tt.seq+uint64(len(mk.tape)) > mk.pushed
}

// tapeMemo keeps the last merge of Trades: the loop asks for the same
// markets' tape every cycle, and it changes only when a trade is shown.
// A merge after new trades extends the last one when that is exact (see
// extend); else it merges again.
type tapeMemo struct {
	ok    bool
	ver   uint64
	mks   []*replayMarket
	seen  []uint64 // per market of mks, its pushed count at the last merge
	side  exchange.Side
	limit int
	src   []memoTrade      // the merge, oldest first
	out   []exchange.Trade // src's trades: buf[start:end]
	buf   []exchange.Trade
	start int
	end   int
	add   []memoTrade // extend's scratch
	// extended counts the merges extend answered (for the tests).
	extended int
}

// memoTrade is one trade of a merge, with its market's index in mks.
type memoTrade struct {
	tt *tapeTrade
	mk int
}

// merge returns mergeNewest(mks, side, limit), from the memo when nothing
// changed since the last call (ver counts the trades shown), extended by
// the new trades when that is exact. The slice is the memo's: the caller
// must not write it (the loop does not), and it is valid until the next
// merge.
func (m *tapeMemo) merge(ver uint64, mks []*replayMarket, side exchange.Side, limit int) []exchange.Trade {
	switch {
	case !m.ok || m.side != side || m.limit != limit || !slices.Equal(m.mks, mks):
		m.full(ver, mks, side, limit)
	case m.ver != ver:
		if !m.extend() {
			m.full(ver, mks, side, limit)
		}
		m.ver = ver
	}
	return m.out
}

// full merges the tapes anew.
func (m *tapeMemo) full(ver uint64, mks []*replayMarket, side exchange.Side, limit int) {
	m.ok, m.ver, m.side, m.limit = true, ver, side, limit
	m.mks = append(m.mks[:0], mks...)
	m.seen = m.seen[:0]
	for _, mk := range mks {
		m.seen = append(m.seen, mk.pushed)
	}
	m.src = mergeNewestTrades(mks, side, limit, m.src[:0])
	m.setOut()
}

// setOut makes out anew from src, in a new buffer: the slices handed out
// before keep what they held.
func (m *tapeMemo) setOut() {
	m.buf = make([]exchange.Trade, len(m.src), max(8*m.limit, len(m.src)))
	for i, t := range m.src {
		m.buf[i] = t.tt.tr
	}
	m.start, m.end = 0, len(m.src)
	m.out = m.buf[m.start:m.end:m.end]
}

// slideOut extends out by the trades of add and drops its oldest beyond
// the limit, writing only past the end of the slices handed out before
// (their capacity ends where they do) while the buffer has room.
func (m *tapeMemo) slideOut(add []memoTrade) {
	if m.end+len(add) > cap(m.buf) {
		m.setOut()
		return
	}
	m.buf = m.buf[:m.end+len(add)]
	for i, t := range add {
		m.buf[m.end+i] = t.tt.tr
	}
	m.end += len(add)
	m.start = max(m.start, m.end-m.limit)
	m.out = m.buf[m.start:m.end:m.end]
}

// extend adds the trades shown since the last merge to it, and reports
// whether that is the merge of the tapes as they are now. It is when every
// new trade is strictly newer than the newest of the last merge (the
// replay shows trades in time order, so ties with it are the only
// exception) and no trade of the last merge fell off its tape: the newest
// limit trades are then the last merge's followed by the new ones in time
// order (on a tie, in the order of the markets, then of the tape), the
// oldest dropped.
func (m *tapeMemo) extend() bool {
	if m.limit <= 0 {
		return false
	}
	add := m.add[:0]
	for i, mk := range m.mks {
		n := mk.pushed - m.seen[i]
		if n > uint64(mk.n) {
			return false // some were pushed off the tape already
		}
		for k := int(n) - 1; k >= 0; k-- {
			if tt := mk.tapeAt(k); m.side == "" || tt.tr.Side == m.side {
				add = append(add, memoTrade{tt: tt, mk: i})
			}
		}
	}
	m.add = add
	slices.SortStableFunc(add, func(a, b memoTrade) int {
		if c := a.tt.at.Compare(b.tt.at); c != 0 {
			return c
		}
		return a.mk - b.mk
	})
	if len(add) > 0 && len(m.src) > 0 && !add[0].tt.at.After(m.src[len(m.src)-1].tt.at) {
		return false
	}
	for _, t := range m.src {
		if !m.mks[t.mk].onTape(t.tt) {
			return false
		}
	}
	for i, mk := range m.mks {
		m.seen[i] = mk.pushed
	}
	m.extended++
	if len(add) == 0 {
		return true
	}
	m.src = append(m.src, add...)
	if drop := len(m.src) - m.limit; drop > 0 {
		m.src = append(m.src[:0], m.src[drop:]...)
	}
	m.slideOut(add)
	return true
}

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
	if limit <= 0 {
		return []exchange.Trade{}
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
	picked := make([]*tapeTrade, 0, min(limit, 64))
	for len(picked) < limit {
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
		picked = append(picked, bt)
		next[best]++
		skip(best)
	}
	slices.Reverse(picked)
	out := make([]exchange.Trade, len(picked))
	for i, tt := range picked {
		out[i] = tt.tr
	}
	return out
}

// tapeMemo keeps the last merge of Trades: the loop asks for the same
// markets' tape every cycle, and it changes only when a trade is shown.
type tapeMemo struct {
	ok    bool
	ver   uint64
	mks   []*replayMarket
	side  exchange.Side
	limit int
	out   []exchange.Trade
}

// merge returns mergeNewest(mks, side, limit), from the memo when nothing
// changed since the last call (ver counts the trades shown); always a
// copy, which the caller may sort.
func (m *tapeMemo) merge(ver uint64, mks []*replayMarket, side exchange.Side, limit int) []exchange.Trade {
	if !m.ok || m.ver != ver || m.side != side || m.limit != limit || !slices.Equal(m.mks, mks) {
		*m = tapeMemo{ok: true, ver: ver, mks: append(m.mks[:0], mks...), side: side, limit: limit, out: mergeNewest(mks, side, limit)}
	}
	return slices.Clone(m.out)
}

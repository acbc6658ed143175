package strategy

import (
	"github.com/mmbot/mmbot/exchange"
)

// Desired is one quote a model wants resting: a price of the outcome's own
// token in (0,1) and a size in shares, both float64 ("model space"). The
// planner turns it into an exact order on the grid.
type Desired struct {
	Outcome Outcome
	Side    exchange.Side
	Price   float64
	Size    float64
	Level   int // 0 is the level nearest the fair value
}

// Model computes the quotes a market should have. Quote appends them to dst
// and returns the result; it must not keep s, st or dst. Models are pure and
// deterministic. st may be nil for models that need no estimator.
type Model interface {
	Quote(dst []Desired, s *Snapshot, st *MarketState) []Desired
}

// fairOf returns the fair value the state computed for this very snapshot,
// or computes it.
func fairOf(s *Snapshot, st *MarketState) (float64, bool) {
	if st != nil && st.HasFair && st.Updated.Equal(s.Now) {
		return st.Fair, true
	}
	return s.FairValue()
}

// quoter expresses YES-space bids and asks as orders, selling first: a
// bid at b is a SELL of held NO shares at 1−b, an ask at a a SELL of held
// YES shares at a, and what the held shares do not cover is a BUY of the
// other outcome (BUY YES at b, BUY NO at 1−a). A pair held on both sides is
// so offered back on both sides, and the exchange merges the two SELLs
// into collateral when they meet. Without allowSell (accounts that cannot
// sell) every quote is a BUY.
//
// avail counts the shares per outcome not yet offered by an earlier quote.
// Shares below the market's minimum size are never offered (a SELL below
// the minimum could not be sent, and lifting it to the minimum would sell
// more than is held); a SELL below the minimum that a wrapper lifts
// (WithMinSize) is reserved at the minimum, so the lifted SELLs still fit
// in the shares held.
type quoter struct {
	allowSell bool
	min       float64 // the market's minimum size, in shares (at least 0.01)
	avail     [2]float64
}

func newQuoter(s *Snapshot, allowSell bool) quoter {
	q := quoter{allowSell: allowSell, min: max(s.MinSize.InexactFloat64(), 0.01)}
	if allowSell {
		q.avail[Yes] = max(s.Sellable(Yes).InexactFloat64(), 0)
		q.avail[No] = max(s.Sellable(No).InexactFloat64(), 0)
	}
	return q
}

// bid appends a YES-space bid at price y.
func (q *quoter) bid(dst []Desired, y, size float64, level int) []Desired {
	return q.quote(dst, No, Yes, 1-y, y, size, level)
}

// ask appends a YES-space ask at price y.
func (q *quoter) ask(dst []Desired, y, size float64, level int) []Desired {
	return q.quote(dst, Yes, No, y, 1-y, size, level)
}

// quote appends size shares of one YES-space side: a SELL of outcome sell
// at sellP for what the held shares cover, a BUY of outcome buy at buyP for
// the rest. A rest below the minimum size is not bought: the quote is then
// a little smaller than asked, rather than a BUY that would be dropped or
// lifted to the minimum.
func (q *quoter) quote(dst []Desired, sell, buy Outcome, sellP, buyP, size float64, level int) []Desired {
	if q.allowSell && q.avail[sell] >= q.min {
		x := min(size, q.avail[sell])
		q.avail[sell] -= max(x, q.min)
		dst = append(dst, Desired{Outcome: sell, Side: exchange.Sell, Price: sellP, Size: x, Level: level})
		if size -= x; size < q.min {
			return dst
		}
	}
	return append(dst, Desired{Outcome: buy, Side: exchange.Buy, Price: buyP, Size: size, Level: level})
}

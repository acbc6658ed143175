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

// quoter expresses YES-space bids and asks as orders: a bid at b is BUY YES
// at b, or SELL NO at 1−b when selling is allowed and the NO shares cover
// it; an ask at a is BUY NO at 1−a, or SELL YES at a likewise. avail counts
// the shares per outcome not yet offered by an earlier level.
type quoter struct {
	allowSell bool
	avail     [2]float64
}

func newQuoter(s *Snapshot, allowSell bool) quoter {
	q := quoter{allowSell: allowSell}
	if allowSell {
		q.avail[Yes] = max(s.Position[Yes].InexactFloat64(), 0)
		q.avail[No] = max(s.Position[No].InexactFloat64(), 0)
	}
	return q
}

// bid appends a YES-space bid at price y.
func (q *quoter) bid(dst []Desired, y, size float64, level int) []Desired {
	if q.allowSell && q.avail[No] >= size {
		q.avail[No] -= size
		return append(dst, Desired{Outcome: No, Side: exchange.Sell, Price: 1 - y, Size: size, Level: level})
	}
	return append(dst, Desired{Outcome: Yes, Side: exchange.Buy, Price: y, Size: size, Level: level})
}

// ask appends a YES-space ask at price y.
func (q *quoter) ask(dst []Desired, y, size float64, level int) []Desired {
	if q.allowSell && q.avail[Yes] >= size {
		q.avail[Yes] -= size
		return append(dst, Desired{Outcome: Yes, Side: exchange.Sell, Price: y, Size: size, Level: level})
	}
	return append(dst, Desired{Outcome: No, Side: exchange.Buy, Price: 1 - y, Size: size, Level: level})
}

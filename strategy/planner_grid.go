package strategy

import (
	"errors"
	"fmt"
	"math"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// ErrInvalidSnapshot is wrapped by Plan's errors about the snapshot's market
// terms (tick size, minimum size).
var ErrInvalidSnapshot = errors.New("strategy: invalid snapshot")

// gridEps absorbs float noise when a price is divided by the tick: 0.29/0.01
// is 28.999999999999996 in float64 and must round down to 29, not 28.
const gridEps = 1e-9

var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12}

// grid is a market's price and size grid: prices are n ticks, n in
// [1, T−1] where T = 1/tick; sizes are centi-shares (2 decimals).
type grid struct {
	coef  int64 // tick = coef × 10^exp
	exp   int32
	t     int64 // 1/tick, an integer
	minCs int64 // minimum size in centi-shares, at least 1
}

// newGrid checks the market's terms: the tick must divide 1 (0.1, 0.01,
// 0.001, 0.0001, 0.005 … all do), leave at least one price inside (0,1),
// and have at most 4 decimals, so that price × size (2 decimals) is exact in
// the exchange's 6-decimal amounts.
func newGrid(tick, minSize decimal.Decimal) (grid, error) {
	if !tick.IsPositive() || tick.NumDigits() > 12 {
		return grid{}, fmt.Errorf("%w: tick size %s", ErrInvalidSnapshot, tick)
	}
	coef, exp := tick.CoefficientInt64(), tick.Exponent()
	for coef%10 == 0 && exp < 0 { // normalize 0.010 to 1e-2
		coef, exp = coef/10, exp+1
	}
	if exp > 0 || exp < -4 {
		return grid{}, fmt.Errorf("%w: tick size %s", ErrInvalidSnapshot, tick)
	}
	one := pow10[-exp]
	if one%coef != 0 || one/coef < 2 {
		return grid{}, fmt.Errorf("%w: tick size %s does not divide 1 into at least 2 steps", ErrInvalidSnapshot, tick)
	}
	ms := minSize.InexactFloat64()
	if minSize.IsNegative() || math.IsInf(ms, 0) || ms > 1e9 {
		return grid{}, fmt.Errorf("%w: minimum size %s", ErrInvalidSnapshot, minSize)
	}
	return grid{coef: coef, exp: exp, t: one / coef, minCs: max(int64(math.Ceil(ms*100-gridEps)), 1)}, nil
}

// price returns n ticks as an exact decimal.
func (g grid) price(n int64) decimal.Decimal { return decimal.New(n*g.coef, g.exp) }

// size returns cs centi-shares as an exact decimal.
func size(cs int64) decimal.Decimal { return decimal.New(cs, -2) }

// ticksFloor and ticksCeil put a price on the grid (bids down, asks up).
func (g grid) ticksFloor(p float64) int64 { return int64(math.Floor(p*float64(g.t) + gridEps)) }
func (g grid) ticksCeil(p float64) int64  { return int64(math.Ceil(p*float64(g.t) - gridEps)) }

// centiShares rounds a size down to 2 decimals.
func centiShares(s float64) int64 { return int64(math.Floor(s*100 + 1e-6)) }

// maxSize bounds sizes in shares so that centi-share arithmetic never
// overflows.
const maxSize = 1e12

// yes maps n ticks of outcome o to YES-space ticks.
func (g grid) yes(o Outcome, n int64) int64 {
	if o == No {
		return g.t - n
	}
	return n
}

// limits is the range of ticks an order may take on each outcome and side
// without crossing the others' best opposite price (both books, in YES
// space) and within [tick, 1−tick].
type limits struct {
	lo, hi [2][2]int64 // [outcome][0 BUY, 1 SELL]
}

func sideIdx(sd exchange.Side) int {
	if sd == exchange.Sell {
		return 1
	}
	return 0
}

// bookLimits computes the ranges from the books without our own orders.
func (g grid) bookLimits(s *Snapshot) limits {
	y, n := s.TopExOwn(Yes), s.TopExOwn(No)
	ask, bid := math.Inf(1), math.Inf(-1) // YES-space best ask and bid
	if y.HasAsk {
		ask = y.Ask
	}
	if n.HasBid {
		ask = min(ask, 1-n.Bid)
	}
	if y.HasBid {
		bid = y.Bid
	}
	if n.HasAsk {
		bid = max(bid, 1-n.Ask)
	}
	T := g.t
	maxBid, minAsk := T-1, int64(1) // YES-space ticks
	if !math.IsInf(ask, 1) {
		maxBid = min(maxBid, int64(math.Ceil(ask*float64(T)-gridEps))-1)
	}
	if !math.IsInf(bid, -1) {
		minAsk = max(minAsk, int64(math.Floor(bid*float64(T)+gridEps))+1)
	}
	var l limits
	l.lo[Yes][0], l.hi[Yes][0] = 1, maxBid   // BUY YES: a bid
	l.lo[Yes][1], l.hi[Yes][1] = minAsk, T-1 // SELL YES: an ask
	l.lo[No][0], l.hi[No][0] = 1, T-minAsk   // BUY NO: an ask at T−n
	l.lo[No][1], l.hi[No][1] = T-maxBid, T-1 // SELL NO: a bid at T−n
	for o := range 2 {
		for sd := range 2 {
			l.lo[o][sd] = max(l.lo[o][sd], 1)
			l.hi[o][sd] = min(l.hi[o][sd], T-1)
		}
	}
	return l
}

func (l *limits) ok(o Outcome, sd exchange.Side, n int64) bool {
	i := sideIdx(sd)
	return n >= l.lo[o][i] && n <= l.hi[o][i]
}

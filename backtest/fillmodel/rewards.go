package fillmodel

import (
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// RewardScorer scores resting orders under the exchange's liquidity-reward
// program. The real scoring function lives in package strategy; the command
// that wires a backtest passes it in through this interface. QuadraticScorer
// is a simple stand-in.
type RewardScorer interface {
	Score(q RewardQuery) RewardScore
}

// RewardQuery is what a scorer sees at one sample.
type RewardQuery struct {
	TokenID   string
	Time      time.Time
	Book      *recording.FixedBook // the market's book, without our virtual orders
	Orders    []OrderState         // our resting orders on this token
	MaxSpread exchange.Fixed       // the program's max spread from mid (price units)
	MinSize   exchange.Fixed       // the program's minimum order size
}

// RewardScore is one sample's score: ours, and the whole book's including
// ours. Our share of the rewards is Ours / Total summed over samples.
type RewardScore struct {
	Ours, Total float64
}

// QuadraticScorer scores each order (and each visible level) within
// MaxSpread of the mid and of at least MinSize as ((v − s)/v)² × size, where
// v is MaxSpread and s the distance from the mid. Both sides are summed; the
// exchange's two-sided adjustments are left to the real scorer.
type QuadraticScorer struct{}

// Score implements RewardScorer.
func (QuadraticScorer) Score(q RewardQuery) RewardScore {
	if q.Book == nil || len(q.Book.Bids) == 0 || len(q.Book.Asks) == 0 || q.MaxSpread <= 0 {
		return RewardScore{}
	}
	mid2 := q.Book.Bids[0].Price + q.Book.Asks[0].Price // twice the mid
	score := func(price, size exchange.Fixed) float64 {
		if size < q.MinSize {
			return 0
		}
		s := float64(price*2-mid2) / 2
		if s < 0 {
			s = -s
		}
		v := float64(q.MaxSpread)
		if s > v {
			return 0
		}
		r := (v - s) / v
		return r * r * size.Float()
	}
	var out RewardScore
	for _, o := range q.Orders {
		out.Ours += score(o.Price, o.Remaining)
	}
	out.Total = out.Ours
	for _, l := range q.Book.Bids {
		out.Total += score(l.Price, l.Size)
	}
	for _, l := range q.Book.Asks {
		out.Total += score(l.Price, l.Size)
	}
	return out
}

// RewardSampler calls a scorer once per interval (default one minute) of
// simulated time. The replay venue calls Sample on every event; it scores
// only when a sample time has been reached.
type RewardSampler struct {
	Scorer   RewardScorer
	Interval time.Duration
	next     time.Time
	buf      []OrderState
}

// Sample scores m's resting orders if one or more sample times are at or
// before now, and returns the score multiplied by the number of sample
// times passed (the book and orders did not change in between) and that
// number. It returns zero samples when none is due.
func (s *RewardSampler) Sample(now time.Time, m *Matcher, maxSpread, minSize exchange.Fixed) (RewardScore, int) {
	iv := s.Interval
	if iv <= 0 {
		iv = time.Minute
	}
	if s.next.IsZero() {
		s.next = now.Truncate(iv).Add(iv)
		return RewardScore{}, 0
	}
	if now.Before(s.next) || s.Scorer == nil {
		return RewardScore{}, 0
	}
	n := int(now.Sub(s.next)/iv) + 1
	s.next = s.next.Add(time.Duration(n) * iv)
	s.buf = m.Resting(s.buf[:0])
	sc := s.Scorer.Score(RewardQuery{TokenID: m.Token(), Time: now, Book: m.Book(), Orders: s.buf,
		MaxSpread: maxSpread, MinSize: minSize})
	return RewardScore{Ours: sc.Ours * float64(n), Total: sc.Total * float64(n)}, n
}

package strategy

import (
	"math"

	"github.com/mmbot/mmbot/exchange"
)

// probEps keeps probabilities off 0 and 1, where the logit is infinite.
const probEps = 1e-6

// clampProb clamps p into [probEps, 1−probEps].
func clampProb(p float64) float64 { return min(max(p, probEps), 1-probEps) }

// Logit maps a probability in (0,1) to ln(p/(1−p)); p is first clamped to
// [1e-6, 1−1e-6].
func Logit(p float64) float64 {
	p = clampProb(p)
	return math.Log(p / (1 - p))
}

// Sigmoid is the inverse of Logit: 1/(1+e^−x).
func Sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// FairValue returns the YES fair value, complement-consistent: the YES mid
// and 1 − the NO mid, weighted by the inverse of each book's spread (a
// tighter book says more), both taken with our own orders removed. With one
// two-sided book it uses that one; with neither, the mid of the consolidated
// YES-space book (YES bids with 1 − NO asks, YES asks with 1 − NO bids); then
// the last trade. ok is false when nothing is known. The result lies in
// [1e-6, 1−1e-6].
func (s *Snapshot) FairValue() (float64, bool) {
	f, ok, _ := s.fairValue()
	return f, ok
}

// fairValue is FairValue, and whether the value came from the books alone
// (false: from the last trade, or none).
func (s *Snapshot) fairValue() (f float64, ok, books bool) {
	y, n := s.TopExOwn(Yes), s.TopExOwn(No)
	var num, den float64
	if m, ok := y.Mid(); ok {
		w := 1 / max(y.Ask-y.Bid, probEps)
		num, den = num+w*m, den+w
	}
	if m, ok := n.Mid(); ok {
		w := 1 / max(n.Ask-n.Bid, probEps)
		num, den = num+w*(1-m), den+w
	}
	if den > 0 {
		return clampProb(num / den), true, true
	}
	bid, hasBid := y.Bid, y.HasBid
	if n.HasAsk && (!hasBid || 1-n.Ask > bid) {
		bid, hasBid = 1-n.Ask, true
	}
	ask, hasAsk := y.Ask, y.HasAsk
	if n.HasBid && (!hasAsk || 1-n.Bid < ask) {
		ask, hasAsk = 1-n.Bid, true
	}
	if hasBid && hasAsk {
		return clampProb((bid + ask) / 2), true, true
	}
	for i := len(s.Trades) - 1; i >= 0; i-- {
		t := &s.Trades[i]
		if t.Outcome.Valid() {
			return clampProb(toYes(t.Outcome, t.Price.InexactFloat64())), true, false
		}
	}
	return 0, false, false
}

// FairMemo computes Snapshot.FairValue, answering with the last value
// without computing when the snapshot holds the same books (the very level
// slices, as with Quoter.Memo: its caller never writes the levels of a book
// it passed) and the same open orders (our orders are taken out of the
// books), and that value came from the books, not from the last trade.
// The zero value is ready to use.
type FairMemo struct {
	ok    bool
	books [2][2][]exchange.PriceLevel // [outcome][bids, asks]
	open  []OpenOrder
	f     float64
}

// FairValue returns s.FairValue().
func (m *FairMemo) FairValue(s *Snapshot) (float64, bool) {
	if m.ok && m.same(s) {
		return m.f, true
	}
	f, ok, books := s.fairValue()
	m.ok = ok && books
	if m.ok {
		m.f = f
		for o := range s.Tokens {
			m.books[o] = [2][]exchange.PriceLevel{s.Tokens[o].Bids, s.Tokens[o].Asks}
		}
		m.open = append(m.open[:0], s.Open...)
	}
	return f, ok
}

// same reports whether s holds the books and open orders remembered. An
// open order counts as the same when every field is (decimals holding the
// very same value: equal).
func (m *FairMemo) same(s *Snapshot) bool {
	if len(s.Open) != len(m.open) {
		return false
	}
	for o := range s.Tokens {
		if !sameSlice(m.books[o][0], s.Tokens[o].Bids) || !sameSlice(m.books[o][1], s.Tokens[o].Asks) {
			return false
		}
	}
	for i := range s.Open {
		if s.Open[i] != m.open[i] {
			return false
		}
	}
	return true
}

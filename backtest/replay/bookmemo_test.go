package replay

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// TestBookMemoReusesExactly holds buildBook, which hands back the last
// slices when the new visible book has the same Fixed levels and own
// levels, to a build from nothing, on books that change, come back the
// same, or keep their levels while our orders change; the slices must be
// reused only when equal, and some must be.
func TestBookMemoReusesExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	side := func(desc bool) []recording.Level {
		var out []recording.Level
		p := exchange.Fixed(500_000)
		for range rng.IntN(4) {
			if desc {
				p -= exchange.Fixed(10_000 * (1 + rng.IntN(2)))
			} else {
				p += exchange.Fixed(10_000 * (1 + rng.IntN(2)))
			}
			out = append(out, recording.Level{Price: p, Size: exchange.Fixed(1_000_000 * (1 + rng.IntN(3)))})
		}
		return out
	}
	reused := 0
	for range 200 {
		r := &Replay{}
		tok := &replayToken{}
		var m bookMemo
		for range 50 {
			switch rng.IntN(3) {
			case 0:
				tok.visFx = recording.FixedBook{Bids: side(true), Asks: side(false)}
			case 1: // the same levels, in new slices
				tok.visFx = recording.FixedBook{Bids: slices.Clone(tok.visFx.Bids), Asks: slices.Clone(tok.visFx.Asks)}
			}
			tok.visVer++
			r.ownBuf = r.ownBuf[:0]
			if rng.IntN(2) == 0 {
				r.ownBuf = append(r.ownBuf, ownLevel{buy: true, price: 480_000, size: exchange.Fixed(1_000_000 * (1 + rng.IntN(2)))})
			}
			before := m
			r.buildBook(tok, &m)
			var fresh bookMemo
			r.buildBook(tok, &fresh)
			if !slices.Equal(levelStrings(m.bids), levelStrings(fresh.bids)) || !slices.Equal(levelStrings(m.asks), levelStrings(fresh.asks)) {
				t.Fatalf("memo %v %v, fresh %v %v", m.bids, m.asks, fresh.bids, fresh.asks)
			}
			if before.ok && len(m.bids) > 0 && len(before.bids) > 0 && &m.bids[0] == &before.bids[0] {
				reused++
			}
		}
	}
	if reused == 0 {
		t.Fatal("the memo never reused its slices")
	}
}

func levelStrings(ls []exchange.PriceLevel) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Price.String()+"@"+l.Size.String())
	}
	return out
}

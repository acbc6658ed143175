package fillmodel

import (
	"math"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

func lvl(t *testing.T, price, size string) recording.Level {
	return recording.Level{Price: fixture.Fx(t, price), Size: fixture.Fx(t, size)}
}

// The backtest venue's reward accounting against a recorded book: our
// virtual orders on both tokens against the visible depth, by hand.
func TestScoreMarketRecordedBook(t *testing.T) {
	terms, err := NewRewardTerms(decimal.NewFromInt(3), decimal.NewFromInt(5), decimal.NewFromInt(1440)) // 1 a minute
	if err != nil {
		t.Fatal(err)
	}
	yes := &recording.FixedBook{Bids: []recording.Level{lvl(t, "0.49", "100"), lvl(t, "0.45", "100")},
		Asks: []recording.Level{lvl(t, "0.51", "50"), lvl(t, "0.60", "1000")}}
	var ms [2]*Matcher
	for o := range ms {
		if ms[o], err = NewMatcher([]string{"yes", "no"}[o], MatcherConfig{}); err != nil {
			t.Fatal(err)
		}
	}
	ms[0].OnBook(yes, fixture.Sec(0))
	place := func(o int, id string, side exchange.Side, price, size string) {
		if _, err := ms[o].Place(VirtualOrder{ID: id, Side: side, Price: fixture.Fx(t, price), Size: fixture.Fx(t, size)}, fixture.Sec(0)); err != nil {
			t.Fatal(err)
		}
	}
	place(0, "b", exchange.Buy, "0.48", "20")    // Q_one: 0.02 from 0.50: (1/3)² × 20 = 20/9
	place(0, "tiny", exchange.Sell, "0.52", "1") // below the minimum size: nothing
	place(1, "n", exchange.Buy, "0.49", "30")    // a YES ask at 0.51: Q_two (2/3)² × 30 = 40/3
	for _, m := range ms {
		m.Advance(fixture.Sec(1))
	}
	var ours [2][]OrderState
	for o, m := range ms {
		ours[o] = m.Resting(nil)
	}
	books := [2]*recording.FixedBook{ms[0].Book(), nil}
	s, ok := ScoreMarket(terms, books, ours, 3)
	if !ok {
		t.Fatal("not scored")
	}
	// Ours: max(min(20/9, 40/3), (40/3)/3) = 40/9. The book's: Q_one 0.49 ×
	// 100 → 400/9, Q_two 0.51 × 50 → 200/9 (0.45 and 0.60 are beyond the
	// spread): max(200/9, (400/9)/3) = 200/9. Share 40/240 = 1/6 of three
	// minutes' pools of 1: 0.5.
	if math.Abs(s.Ours-3*40.0/9) > 1e-9 || math.Abs(s.Total-3*240.0/9) > 1e-9 || s.Earned != 500_000 {
		t.Fatalf("score %+v, want ours %v total %v earned 0.5", s, 3*40.0/9, 3*240.0/9)
	}

	// The NO book as the exchange shows it, a mirror of the YES book, adds
	// nothing: the same orders are not counted twice.
	mirror := &recording.FixedBook{Bids: []recording.Level{lvl(t, "0.49", "50"), lvl(t, "0.40", "1000")},
		Asks: []recording.Level{lvl(t, "0.51", "100"), lvl(t, "0.55", "100")}}
	if m, ok := ScoreMarket(terms, [2]*recording.FixedBook{yes, mirror}, ours, 3); !ok || m != s {
		t.Fatalf("with the mirrored NO book: %+v, want %+v", m, s)
	}
	// A NO book of its own (not a mirror) is more competition: its bid
	// 0.48 × 100 is a YES ask at 0.52, Q_two += (1/3)² × 100 = 100/9.
	own := &recording.FixedBook{Bids: []recording.Level{lvl(t, "0.48", "100")}}
	if m, ok := ScoreMarket(terms, [2]*recording.FixedBook{yes, own}, ours, 1); !ok || math.Abs(m.Total-(40.0/9+300.0/9)) > 1e-9 {
		t.Fatalf("with a separate NO book: %+v, want total %v", m, 40.0/9+300.0/9)
	}

	// Mid 0.95: our one-sided bid scores nothing, so earns nothing.
	hi := &recording.FixedBook{Bids: []recording.Level{lvl(t, "0.94", "100")}, Asks: []recording.Level{lvl(t, "0.96", "100")}}
	one := [2][]OrderState{{{VirtualOrder: VirtualOrder{ID: "x", Side: exchange.Buy, Price: fixture.Fx(t, "0.94"), Size: fixture.Fx(t, "50")},
		Remaining: fixture.Fx(t, "50"), Active: true}}, nil}
	if s, ok := ScoreMarket(terms, [2]*recording.FixedBook{hi, nil}, one, 1); !ok || s.Ours != 0 || s.Earned != 0 || s.Total <= 0 {
		t.Fatalf("one-sided at 0.95: %+v %v", s, ok)
	}
	// The NO book gives the mid when the YES book is one-sided.
	no := &recording.FixedBook{Bids: []recording.Level{lvl(t, "0.49", "100")}, Asks: []recording.Level{lvl(t, "0.51", "100")}}
	if m, ok := bookMid([2]*recording.FixedBook{{}, no}); !ok || math.Abs(m-0.5) > 1e-12 {
		t.Fatalf("mid from NO: %v %v", m, ok)
	}
	if _, ok := ScoreMarket(RewardTerms{}, books, ours, 1); ok {
		t.Fatal("a market without a program scored")
	}
	if _, ok := ScoreMarket(terms, [2]*recording.FixedBook{}, ours, 1); ok {
		t.Fatal("scored without a mid")
	}
}

func TestRewardClock(t *testing.T) {
	var c RewardClock
	if _, n := c.Due(fixture.Sec(1)); n != 0 {
		t.Error("first call sampled")
	}
	if _, n := c.Due(fixture.Sec(59)); n != 0 {
		t.Error("sampled before the minute")
	}
	at, n := c.Due(fixture.Sec(180))
	if n != 3 || !at.Equal(fixture.Sec(60)) {
		t.Fatalf("%d samples from %s, want 3 (1:00, 2:00, 3:00)", n, at)
	}
	if _, n := c.Due(fixture.Sec(200)); n != 0 {
		t.Error("sampled twice in a minute")
	}
}

func TestNewRewardTerms(t *testing.T) {
	tm, err := NewRewardTerms(decimal.RequireFromString("3.5"), decimal.NewFromInt(20), decimal.NewFromInt(100))
	if err != nil || tm.Rule.MaxSpread != 35_000 || tm.Rule.MinSize != 20_000_000 || tm.DailyRate != 100_000_000 || !tm.Pays() {
		t.Fatalf("%+v %v", tm, err)
	}
	if z, err := NewRewardTerms(decimal.Zero, decimal.Zero, decimal.Zero); err != nil || z.Pays() {
		t.Fatalf("zero terms: %+v %v", z, err)
	}
	if _, err := NewRewardTerms(decimal.RequireFromString("0.00001"), decimal.Zero, decimal.Zero); err == nil {
		t.Fatal("a max spread finer than 6 decimals of price accepted")
	}
}

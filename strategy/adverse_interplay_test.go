package strategy

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

// TestAdverseUnderEndDate: the end-date wind-down composed around the rules
// still tapers, reduces and stops what they leave, and a pull still pulls
// in the taper.
func TestAdverseUnderEndDate(t *testing.T) {
	adv, err := WithAdverse(pair, AdverseParams{BackoffTicks: 2, BackoffFor: 10 * time.Second, ThroughCooling: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m, err := WithEndDate(adv, EndDateParams{Taper: 2 * time.Hour, ReduceOnly: time.Hour, Stop: 10 * time.Minute, MinFactor: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	backedOff := func(t *testing.T, st *MarketState) { fillAt(0, Yes, exchange.Buy, 0.48, 10, "30")(t, st) } // bid −0.005
	pulled := []step{observeAt(0, 0.5, ours), observeAt(0, 0.5, ours, tprint(0, Yes, exchange.Sell, "0.40"))}
	cases := []struct {
		name string
		tau  time.Duration
		pos  [2]string
		tape []step
		want []dq
	}{
		{"taper shrinks the backed-off quotes", 90 * time.Minute, [2]string{"0", "0"}, []step{backedOff},
			[]dq{{Yes, exchange.Buy, 0.475, 7.5, 0}, {No, exchange.Buy, 0.48, 7.5, 0}}},
		// Long 14 YES: only the ask (BUY NO) reduces; the bid's back-off is moot.
		{"reduce-only keeps the reducing side", 30 * time.Minute, [2]string{"14", "0"}, []step{backedOff},
			[]dq{{No, exchange.Buy, 0.48, 10, 0}}},
		// Short: the bid reduces, still backed off.
		{"reduce-only keeps the backed-off bid", 30 * time.Minute, [2]string{"0", "6"}, []step{backedOff},
			[]dq{{Yes, exchange.Buy, 0.475, 6, 0}}},
		{"stopped stays stopped", 5 * time.Minute, [2]string{"14", "0"}, []step{backedOff}, nil},
		{"a pull in the taper pulls", 90 * time.Minute, [2]string{"0", "0"}, pulled, nil},
		{"a pull in reduce-only pulls the reducing side too", 30 * time.Minute, [2]string{"14", "0"}, pulled, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := NewMarketState(DefaultEstimatorParams())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.tape {
				s(t, st)
			}
			s := book("0.01", "0.49", "0.51", "", "")
			s.EndDate = t0.Add(c.tau)
			s.Position = [2]decimal.Decimal{d(c.pos[0]), d(c.pos[1])}
			checkQuotes(t, m.Quote(nil, s, st), c.want)
		})
	}
}

// TestAdverseTickSizeChange: the back-off and the widening are in ticks of
// the snapshot's tick size, so a market whose tick changes is backed off by
// the new tick at once, and the planner puts the result on the new grid.
func TestAdverseTickSizeChange(t *testing.T) {
	p := AdverseParams{BackoffTicks: 2, BackoffFor: 10 * time.Second}
	m, err := WithAdverse(pair, p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewMarketState(DefaultEstimatorParams())
	if err != nil {
		t.Fatal(err)
	}
	fillAt(0, Yes, exchange.Buy, 0.48, 10, "0")(t, st) // swept: the whole 2 ticks
	for _, c := range []struct {
		tick    string
		bid     float64 // desired
		planned string  // on the grid, rounded down
	}{
		{"0.01", 0.46, "0.46"},
		{"0.001", 0.478, "0.478"},
		{"0.1", 0.28, "0.2"},
	} {
		s := book(c.tick, "", "", "", "")
		s.MinSize = d("1")
		got := m.Quote(nil, s, st)
		checkQuotes(t, got, []dq{{Yes, exchange.Buy, c.bid, 10, 0}, {No, exchange.Buy, 0.48, 10, 0}})
		q := Quoter{Model: m, Tolerance: Tolerance{PriceTicks: 0, SizeFrac: 0.1}}
		res, err := q.Pass(s, st, Unlimited(), risk.Totals{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range res.Places {
			if o.Outcome == Yes && o.Side == exchange.Buy {
				found = true
				if !o.Price.Equal(d(c.planned)) {
					t.Errorf("tick %s: planned bid %s, want %s", c.tick, o.Price, c.planned)
				}
			}
		}
		if !found {
			t.Errorf("tick %s: no bid planned: %+v", c.tick, res.Places)
		}
	}
}

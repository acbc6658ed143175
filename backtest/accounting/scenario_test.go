package accounting_test

import (
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/shopspring/decimal"
)

func TestAccumulator(t *testing.T) {
	r := synthetic.Scenario(t)
	s := r.Total
	checkDec := func(name string, got decimal.Decimal, want string) {
		t.Helper()
		if !got.Equal(fixture.Dec(want)) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	// Cash: −49 (buy 100 @0.49) +30.6 (sell 60 @0.51) −5.2 (buy 10 @0.52)
	// −0.052 (1% taker fee) +50 (50 shares redeemed at 1) = 26.348.
	checkDec("PnL", s.PnL, "26.348")
	checkDec("Cash", s.Cash, "26.348")
	// Realized: 60 × (0.51 − 0.49) = 1.2; redemption 50 − 24.8 (cost of 40 @0.49
	// and 10 @0.52) = 25.2; minus the fee.
	checkDec("Realized", s.Realized, "26.348")
	checkDec("Unrealized", s.Unrealized, "0")
	// Spread: 100 × (0.50 − 0.49) + 60 × (0.51 − 0.51) + 10 × (0.51 − 0.52).
	checkDec("SpreadPnL", s.SpreadPnL, "0.9")
	checkDec("Fees", s.Fees, "0.052")
	checkDec("InventoryPnL", s.InventoryPnL, "25.5")
	checkDec("Volume", s.Volume, "170")
	checkDec("Notional", s.Notional, "84.8")
	if s.Fills != 3 || s.TakerFills != 1 {
		t.Errorf("fills %d taker %d", s.Fills, s.TakerFills)
	}
	if fr := s.FillRatio(); math.Abs(fr-170.0/210) > 1e-12 {
		t.Errorf("fill ratio %v", fr)
	}
	if s.AvgWait != 60*time.Second || s.WaitSamples != 2 {
		t.Errorf("avg wait %v over %d", s.AvgWait, s.WaitSamples)
	}
	if s.OrdersSent != 3 || s.CancelsSent != 1 {
		t.Errorf("orders %d cancels %d", s.OrdersSent, s.CancelsSent)
	}
	tok := r.Tokens[0]
	checkDec("MaxAbsPos", tok.MaxAbsPos, "100")
	checkDec("Position", tok.Position, "0")
	checkDec("LastMid", tok.LastMid, "1")
	if tok.MeanAbsPos != 75 || !tok.Resolved { // samples at 1:00 (100) and 2:00 (50)
		t.Errorf("mean |pos| %v resolved %v", tok.MeanAbsPos, tok.Resolved)
	}
	wantMarkouts := [][]float64{
		{-0.01, 0, -0.01},   // 1 s
		{0.02, -0.05, 0.04}, // 10 s
		{0.02, -0.49, 0.48}, // 60 s (the last two after resolution, at the payout)
	}
	for i, m := range r.Markouts {
		if len(m.Values) != len(wantMarkouts[i]) {
			t.Errorf("markouts %v: %v, want %v", m.Horizon, m.Values, wantMarkouts[i])
			continue
		}
		for j := range m.Values {
			if math.Abs(m.Values[j]-wantMarkouts[i][j]) > 1e-9 {
				t.Errorf("markouts %v: %v, want %v", m.Horizon, m.Values, wantMarkouts[i])
				break
			}
		}
	}
	// Mid-to-mid: the markout less each fill's edge to the mid at the fill
	// (+0.01 for the buy at 0.49 under a 0.50 mid, 0 for the sale at the
	// mid, −0.01 for the taker buy at 0.52 over a 0.51 mid).
	wantMid := [][]float64{
		{-0.02, 0, 0},       // 1 s
		{0.01, -0.05, 0.05}, // 10 s
		{0.01, -0.49, 0.49}, // 60 s
	}
	if len(r.MidMarkouts) != len(wantMid) {
		t.Fatalf("%d mid-to-mid horizons", len(r.MidMarkouts))
	}
	for i, m := range r.MidMarkouts {
		if m.Horizon != r.Markouts[i].Horizon || len(m.Values) != len(wantMid[i]) {
			t.Errorf("mid-to-mid %v: %v, want %v", m.Horizon, m.Values, wantMid[i])
			continue
		}
		for j := range m.Values {
			if math.Abs(m.Values[j]-wantMid[i][j]) > 1e-9 {
				t.Errorf("mid-to-mid %v: %v, want %v", m.Horizon, m.Values, wantMid[i])
				break
			}
		}
	}
	if m := r.Markouts[1]; math.Abs(m.Mean-(0.01/3)) > 1e-9 || math.Abs(m.SizeWeight-(2-3+0.4)/170) > 1e-9 || m.Median != 0.02 {
		t.Errorf("10 s stats %+v", m)
	}
	if len(r.Totals) != 2 || !r.Totals[0].PnL.Equal(fixture.Dec("2")) || !r.Totals[1].PnL.Equal(fixture.Dec("4.348")) ||
		!r.Totals[0].Time.Equal(fixture.Sec(60)) {
		t.Errorf("totals %+v", r.Totals)
	}
	if len(r.Series) != 2 || r.Series[1].OurBid != fixture.Fx(t, "0.49") || !r.Series[1].Mid.Equal(fixture.Dec("0.56")) || r.Series[1].Fills != 3 {
		t.Errorf("series %+v", r.Series)
	}
	if !r.MaxDrawdown.IsZero() || !math.IsNaN(r.Sharpe) {
		t.Errorf("drawdown %s sharpe %v", r.MaxDrawdown, r.Sharpe)
	}
	if r.RewardShare() != 0.25 || r.Samples != 1 || !r.RewardEarned().Equal(fixture.Dec("0.25")) {
		t.Errorf("reward share %v, earned %s", r.RewardShare(), r.RewardEarned())
	}
	if r.Rates[0].Peak != 2 || r.Rates[1].Peak != 3 || r.Rates[2].Peak != 1 || r.Rates[0].Cap != 2400 {
		t.Errorf("rates %+v", r.Rates)
	}
	if len(r.Fills) != 3 || !r.Fills[0].Mid.Equal(fixture.Dec("0.5")) {
		t.Errorf("fills %+v", r.Fills)
	}
}

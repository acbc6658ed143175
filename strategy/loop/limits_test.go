package loop

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// limitRig is a loop with the given risk limits, selling first, logging to
// a buffer.
func limitRig(t *testing.T, lim risk.Limits) (*loopRig, *bytes.Buffer) {
	t.Helper()
	v := newFakeVenue()
	v.setBook("yes", "0.48", "0.52", lt0)
	v.setBook("no", "0.48", "0.52", lt0)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}, AllowSell: true})
	if err != nil {
		t.Fatal(err)
	}
	chk, err := risk.NewChecker(lim)
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	clock := clocktest.New(lt0)
	j := newMemJournal()
	l, err := New(Config{Markets: []strategy.Market{testMarket()}, Estimators: strategy.DefaultEstimatorParams(), Kill: kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{SizeFrac: 0.1}, Checker: chk}},
		v, &fakeSigner{}, j, clock, zerolog.New(&buf), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &loopRig{v: v, j: j, clock: clock, l: l, kill: kill}, &buf
}

// A market held back by a limit shows it in the status and says so in the
// log once, not every cycle, and again when the limit clears; the quotes are
// shrunk, not refused.
func TestLoopHeldBackByLimitLoggedOnce(t *testing.T) {
	r, buf := limitRig(t, risk.Limits{MaxMarketShares: dec("15")})
	r.cycle(t)
	if st := r.l.Status(); st.Markets[0].Limit != "" || st.Tally.Rejected != 0 {
		t.Fatalf("limit %q, %d rejected before any position", st.Markets[0].Limit, st.Tally.Rejected)
	}
	if r.v.fill("yes", exchange.Buy, "10") == "" {
		t.Fatal("no YES bid to fill")
	}
	// Long 10 YES with a limit of 15: the bid shrinks to 5, the ask sells.
	for range 3 {
		r.nextCycle(t)
	}
	st := r.l.Status()
	if st.Markets[0].Limit != "market_position" || st.Tally.Rejected != 0 || st.Tally.HeldBack[risk.ReasonMarketShares] != 3 {
		t.Fatalf("limit %q, %d rejected, held back %v", st.Markets[0].Limit, st.Tally.Rejected, st.Tally.HeldBack)
	}
	var bid, sell bool
	for _, o := range st.Markets[0].Orders {
		bid = bid || o.Side == exchange.Buy && o.Outcome == strategy.Yes && o.Size.Equal(dec("5"))
		sell = sell || o.Side == exchange.Sell && o.Outcome == strategy.Yes && o.Size.Equal(dec("10"))
	}
	if !bid || !sell {
		t.Fatalf("orders %+v, want a YES bid shrunk to 5 and a SELL of the 10 YES held", st.Markets[0].Orders)
	}
	if n := strings.Count(buf.String(), "quotes held back by a risk limit"); n != 1 {
		t.Fatalf("%d held-back lines over 3 cycles, want 1; log:\n%s", n, buf)
	}

	// The SELL fills: flat again, the status shows no limit at once, and
	// the log says the limit cleared once it has stayed clear for
	// clearAfter cycles (a market at a limit fits now and then).
	if r.v.fill("yes", exchange.Sell, "10") == "" {
		t.Fatal("no YES sell to fill")
	}
	r.nextCycle(t)
	if st := r.l.Status(); st.Markets[0].Limit != "" {
		t.Fatalf("limit %q after the position is gone", st.Markets[0].Limit)
	}
	const cleared = "quotes no longer held back by a risk limit"
	for i := 1; i < clearAfter; i++ {
		if strings.Contains(buf.String(), cleared) {
			t.Fatalf("cleared after %d cycles, want %d", i, clearAfter)
		}
		r.nextCycle(t)
	}
	for range 3 {
		r.nextCycle(t)
	}
	if n := strings.Count(buf.String(), cleared); n != 1 {
		t.Fatalf("%d cleared lines, want 1; log:\n%s", n, buf)
	}
}

// Risk rejections are counted per reason.
func TestLoopRejectionsByReason(t *testing.T) {
	// A collar of a cent around the fair value refuses quotes two cents away.
	r, _ := limitRig(t, risk.Limits{Collar: dec("0.01")})
	r.cycle(t)
	r.nextCycle(t)
	tl := r.l.Status().Tally
	sum := 0
	for _, n := range tl.RejectedBy {
		sum += n
	}
	if tl.Rejected != 4 || tl.RejectedBy[risk.ReasonCollar] != 4 || sum != tl.Rejected {
		t.Fatalf("rejected %d, by reason %v", tl.Rejected, tl.RejectedBy)
	}
}

// Over many cycles of three markets sharing the total limits, with random
// fills, the loop never has an order refused for a size or capital limit
// (the planner sizes quotes within them, across markets), the worst-case
// position stays within the limits, and the collateral at risk stays
// within the budget but for what fills add: a BUY filled at 0.48 is marked
// at the fair 0.50.
func TestLoopLimitsAcrossMarkets(t *testing.T) {
	v := newFakeVenue()
	markets := nMarkets(3)
	for _, m := range markets {
		v.setBook(m.TokenIDs[0], "0.48", "0.52", lt0)
		v.setBook(m.TokenIDs[1], "0.48", "0.52", lt0)
	}
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02, 0.03}, Sizes: []float64{10, 10}, AllowSell: true})
	if err != nil {
		t.Fatal(err)
	}
	lim := risk.Limits{MaxMarketShares: dec("30"), MaxTotalShares: dec("60"), MaxTotalAtRisk: dec("25")}
	chk, err := risk.NewChecker(lim)
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 3})
	if err != nil {
		t.Fatal(err)
	}
	clock := clocktest.New(lt0)
	l, err := New(Config{Markets: markets, Estimators: strategy.DefaultEstimatorParams(), Kill: kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{SizeFrac: 0.1}, Checker: chk}},
		v, &fakeSigner{}, newMemJournal(), clock, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(7, 7))
	sides := []exchange.Side{exchange.Buy, exchange.Sell}
	for cycle := range 200 {
		if err := l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
		st := l.Status()
		for r, n := range st.Tally.RejectedBy {
			if n > 0 && r != int(risk.ReasonSelfCross) {
				t.Fatalf("cycle %d: %d orders refused for %s", cycle, n, risk.Reason(r))
			}
		}
		var shares, atRisk decimal.Decimal
		for _, ms := range st.Markets {
			var open []risk.Order
			for _, o := range ms.Orders {
				open = append(open, risk.Order{Outcome: int(o.Outcome), Side: o.Side, Price: o.Price, Size: o.Size.Sub(o.Matched)})
			}
			tot := risk.MarketTotals(0.5, ms.Position, open)
			if tot.Shares.GreaterThan(lim.MaxMarketShares) {
				t.Fatalf("cycle %d: market %s worst case %s over %s", cycle, ms.ConditionID, tot.Shares, lim.MaxMarketShares)
			}
			shares, atRisk = shares.Add(tot.Shares), atRisk.Add(tot.AtRisk)
		}
		if shares.GreaterThan(lim.MaxTotalShares) {
			t.Fatalf("cycle %d: total worst case %s over %s", cycle, shares, lim.MaxTotalShares)
		}
		if slack := st.Tally.Volume.Mul(dec("0.02")); atRisk.GreaterThan(lim.MaxTotalAtRisk.Add(slack)) {
			t.Fatalf("cycle %d: %s at risk over the budget %s (+%s from fills)", cycle, atRisk, lim.MaxTotalAtRisk, slack)
		}
		// Fill a random order of a random market, partly or whole.
		m := markets[rnd.IntN(len(markets))]
		v.fill(m.TokenIDs[rnd.IntN(2)], sides[rnd.IntN(2)], []string{"2", "5", "10"}[rnd.IntN(3)])
		clock.Advance(time.Second)
		for _, m := range markets {
			v.setBook(m.TokenIDs[0], "0.48", "0.52", clock.Now())
			v.setBook(m.TokenIDs[1], "0.48", "0.52", clock.Now())
		}
	}
	tl := l.Status().Tally
	held := 0
	for _, n := range tl.HeldBack {
		held += n
	}
	if tl.Fills < 50 || held == 0 || tl.Placed < 50 {
		t.Fatalf("a weak run: %d fills, %d placed, %d quotes held back", tl.Fills, tl.Placed, held)
	}
	t.Logf("200 cycles: %d placed, %d fills, held back %v, rejected %v", tl.Placed, tl.Fills, tl.HeldBack, tl.RejectedBy)
}

package loop

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

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

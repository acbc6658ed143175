package loop

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

var lt0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

type loopRig struct {
	v     *fakeVenue
	j     *memJournal
	s     *fakeSigner
	clock *clocktest.Clock
	l     *Loop
	kill  *risk.KillSwitch
}

func testMarket() strategy.Market {
	return strategy.Market{ConditionID: "0xcond", Slug: "m", TokenIDs: [2]string{"yes", "no"},
		Tick: decimal.RequireFromString("0.01"), MinSize: decimal.RequireFromString("5")}
}

func newRig(t *testing.T, v *fakeVenue, j *memJournal) *loopRig {
	t.Helper()
	clock := clocktest.New(lt0)
	if v == nil {
		v = newFakeVenue()
		v.setBook("yes", "0.48", "0.52", lt0)
		v.setBook("no", "0.48", "0.52", lt0)
	}
	if j == nil {
		j = newMemJournal()
	}
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeSigner{}
	l, err := New(Config{Markets: []strategy.Market{testMarket()}, Estimators: strategy.DefaultEstimatorParams(), Kill: kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
		v, s, j, clock, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &loopRig{v: v, j: j, s: s, clock: clock, l: l, kill: kill}
}

func (r *loopRig) cycle(t *testing.T) {
	t.Helper()
	if err := r.l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestLoopPlacesThenKeeps(t *testing.T) {
	r := newRig(t, nil, nil)
	if err := r.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.cycle(t)
	if r.v.placed != 2 {
		t.Fatalf("placed %d orders, want 2 (a bid on YES and a bid on NO)", r.v.placed)
	}
	if got := r.j.count(JLive); got != 2 {
		t.Fatalf("journal has %d live orders, want 2", got)
	}
	for i := 0; i < 5; i++ {
		r.clock.Advance(time.Second)
		r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
		r.v.setBook("no", "0.48", "0.52", r.clock.Now())
		r.cycle(t)
	}
	if r.v.placed != 2 || r.v.calls["cancel"] != 0 {
		t.Fatalf("an unchanged market sent %d places and %d cancels after the first cycle", r.v.placed-2, r.v.calls["cancel"])
	}
}

func TestLoopBooksFills(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.cycle(t)
	if id := r.v.fill("yes", exchange.Buy, "4"); id == "" {
		t.Fatal("no live YES bid to fill")
	}
	r.clock.Advance(time.Second)
	r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
	r.v.setBook("no", "0.48", "0.52", r.clock.Now())
	var reports reportLog
	r.l.obs = &reports
	r.cycle(t)
	if len(reports) != 1 || reports[0].Fills != 1 || len(reports[0].Filled) != 1 {
		t.Fatalf("reports %+v, want one with one fill", reports)
	}
	f := reports[0].Filled[0]
	var journaled FillRecord
	for _, jf := range r.j.fills {
		journaled = jf
	}
	if f.ConditionID != "0xcond" || f.Outcome != strategy.Yes || f.Side != exchange.Buy || !f.Size.Equal(decimal.NewFromInt(4)) ||
		!f.Price.Equal(journaled.Price) || !f.Time.Equal(r.clock.Now()) {
		t.Fatalf("reported fill %+v, journaled %+v", f, journaled)
	}
	if got := r.j.pos["yes"]; !got.Equal(decimal.NewFromInt(4)) {
		t.Fatalf("journal YES position %s, want 4", got)
	}
	tl := r.l.Tally()
	if tl.Fills != 1 || !tl.Volume.Equal(decimal.NewFromInt(4)) {
		t.Fatalf("tally fills %d volume %s", tl.Fills, tl.Volume)
	}
	// The same matched size read again books nothing twice.
	r.clock.Advance(time.Second)
	r.cycle(t)
	if len(r.j.fills) != 1 {
		t.Fatalf("%d fills journaled, want 1", len(r.j.fills))
	}
	if last := reports[len(reports)-1]; last.Fills != 0 || len(last.Filled) != 0 {
		t.Fatalf("a cycle without fills reported %d: %+v", last.Fills, last.Filled)
	}
}

// reportLog is an Observer that keeps every report.
type reportLog []CycleReport

func (l *reportLog) OnCycle(r *CycleReport) { *l = append(*l, *r) }

func TestLoopLostAnswerIsNotResent(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.v.placeErr = errors.New("connection reset")
	r.cycle(t)
	if r.j.count(JSent) != 2 {
		t.Fatalf("orders with a lost answer: %d sent in the journal, want 2", r.j.count(JSent))
	}
	r.v.placeErr = nil
	r.clock.Advance(time.Second)
	r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
	r.v.setBook("no", "0.48", "0.52", r.clock.Now())
	r.cycle(t)
	if r.v.placed != 2 {
		t.Fatalf("the exchange received %d orders, want 2 (no resend)", r.v.placed)
	}
	if r.j.count(JLive) != 2 {
		t.Fatalf("reconciled live orders: %d, want 2", r.j.count(JLive))
	}
}

func TestLoopRestartReconciles(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.cycle(t)
	r.v.fill("no", exchange.Buy, "10") // fully filled while we were down
	// An intent that never reached the exchange (crash between journal and send).
	_ = r.j.RecordIntents([]Intent{{Hash: "0xlost", ConditionID: "0xcond", TokenID: "yes", Side: exchange.Buy,
		Price: decimal.RequireFromString("0.40"), Size: decimal.NewFromInt(10)}}, lt0)

	r2 := newRig(t, r.v, r.j)
	if err := r2.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Its answer never came: it may still arrive, until its grace is over.
	if st := r.j.orders["0xlost"].State; st != JIntent {
		t.Fatalf("unsent intent is %s after reconciliation, want intent (in flight until its grace is over)", st)
	}
	if got := r.j.pos["no"]; !got.Equal(decimal.NewFromInt(10)) {
		t.Fatalf("fill made while down not booked: NO position %s", got)
	}
	if r.j.count(JLive) != 1 || r.j.count(JFilled) != 1 {
		t.Fatalf("after reconciliation: %d live, %d filled; want 1 and 1", r.j.count(JLive), r.j.count(JFilled))
	}
	r2.s.n = r.s.n // the new process's orders are new orders
	r2.clock.Advance(31 * time.Second)
	r2.v.setBook("yes", "0.48", "0.52", r2.clock.Now())
	r2.v.setBook("no", "0.48", "0.52", r2.clock.Now())
	r2.cycle(t)
	if st := r.j.orders["0xlost"].State; st != JFailed {
		t.Fatalf("unsent intent is %s once its grace is over, want failed", st)
	}
}

func TestLoopShutdownCancelsEverything(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.cycle(t)
	if r.v.live() != 2 {
		t.Fatalf("%d live before shutdown", r.v.live())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.l.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if r.v.live() != 0 {
		t.Fatalf("%d orders live at the exchange after shutdown", r.v.live())
	}
	if nf, _ := r.j.NonFinal(); len(nf) != 0 {
		t.Fatalf("%d non-final orders in the journal after shutdown", len(nf))
	}
}

func TestLoopJournalFailureSendsNothing(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.j.failIntents = errors.New("disk full")
	if err := r.l.Cycle(context.Background()); err == nil {
		t.Fatal("cycle succeeded with a failing journal")
	}
	if r.v.placed != 0 {
		t.Fatalf("%d orders sent without a journaled intent", r.v.placed)
	}
}

func TestLoopKillSwitchCancelsAndStops(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.cycle(t)
	r.kill.Halt("test", r.clock.Now())
	r.clock.Advance(time.Second)
	r.cycle(t)
	if r.v.live() != 0 {
		t.Fatalf("%d orders live after the kill switch tripped", r.v.live())
	}
	placed := r.v.placed
	r.clock.Advance(time.Second)
	r.cycle(t)
	if r.v.placed != placed {
		t.Fatal("quoting went on while the kill switch was tripped")
	}
	if st := r.l.Status(); !st.Tripped {
		t.Fatal("status does not show the trip")
	}
	r.kill.Reset("operator")
	r.clock.Advance(time.Second)
	r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
	r.v.setBook("no", "0.48", "0.52", r.clock.Now())
	r.cycle(t)
	if r.v.live() != 2 {
		t.Fatalf("%d live after reset, want 2", r.v.live())
	}
}

func TestLoopRefusalsTripKillSwitch(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.v.refuse = "not enough balance"
	for i := 0; i < 2; i++ {
		r.cycle(t)
		r.clock.Advance(time.Second)
		r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
		r.v.setBook("no", "0.48", "0.52", r.clock.Now())
	}
	if tripped, trip := r.kill.Tripped(); !tripped || trip.Reason != risk.TripConsecutiveErrors {
		t.Fatalf("kill switch after 4 refusals: tripped=%v %v", tripped, trip.Reason)
	}
	if r.j.count(JFailed) != 4 {
		t.Fatalf("%d failed orders journaled, want 4", r.j.count(JFailed))
	}
}

func TestLoopStaleBookCancels(t *testing.T) {
	r := newRig(t, nil, nil)
	r.l.cfg.MaxBookAge = 5 * time.Second
	_ = r.l.Start(context.Background())
	r.cycle(t)
	r.clock.Advance(10 * time.Second) // books keep their old timestamp
	r.cycle(t)
	if r.v.live() != 0 {
		t.Fatalf("%d orders live on a stale book", r.v.live())
	}
	if st := r.l.Status(); !st.Markets[0].Stale {
		t.Fatal("status does not mark the market stale")
	}
}

func TestCancelAll(t *testing.T) {
	r := newRig(t, nil, nil)
	_ = r.l.Start(context.Background())
	r.cycle(t)
	r.v.fill("yes", exchange.Buy, "3")
	if r.v.live() != 2 {
		t.Fatalf("%d live before cancel-all", r.v.live())
	}
	tally, err := CancelAll(context.Background(), r.v, r.j, r.clock, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if r.v.live() != 0 {
		t.Fatalf("%d orders live after cancel-all", r.v.live())
	}
	if tally.Cancelled != 2 || tally.Fills != 1 {
		t.Fatalf("cancel-all tally: %d cancelled, %d fills; want 2 and 1", tally.Cancelled, tally.Fills)
	}
	if nf, _ := r.j.NonFinal(); len(nf) != 0 {
		t.Fatalf("%d non-final orders left in the journal", len(nf))
	}
	if err := r.l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	empty, _ := New(Config{}, r.v, r.s, r.j, r.clock, zerolog.Nop(), nil)
	if err := empty.Cycle(context.Background()); !errors.Is(err, errNothingToQuote) {
		t.Fatalf("a loop without markets cycled: %v", err)
	}
}

func TestLoopClockSkewTrips(t *testing.T) {
	r := newRig(t, nil, nil)
	kill, _ := risk.NewKillSwitch(risk.KillConfig{MaxClockSkew: 2 * time.Second})
	r.l.cfg.Kill = kill
	_ = r.l.Start(context.Background())
	future := r.clock.Now().Add(5 * time.Second) // the exchange's clock runs 5 s ahead
	r.v.setBook("yes", "0.48", "0.52", future)
	r.v.setBook("no", "0.48", "0.52", future)
	r.cycle(t)
	if tripped, trip := kill.Tripped(); !tripped || trip.Reason != risk.TripClockSkew {
		t.Fatalf("5 s of skew against a 2 s bound: tripped=%v reason=%v", tripped, trip.Reason)
	}
}

func TestLoopUnknownOrders(t *testing.T) {
	for _, pol := range []UnknownPolicy{UnknownReport, UnknownCancel, UnknownAdopt} {
		t.Run(string(pol), func(t *testing.T) {
			// Another process placed two orders on this account; our journal is empty.
			r := newRig(t, nil, nil)
			_ = r.l.Start(context.Background())
			r.cycle(t)
			if r.v.live() != 2 {
				t.Fatalf("setup: %d live", r.v.live())
			}
			fresh := newMemJournal()
			r2 := newRig(t, r.v, fresh)
			r2.l.cfg.Finder, r2.l.cfg.Unknown = fakeFinder{r.v}, pol
			if err := r2.l.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			switch pol {
			case UnknownReport:
				if r.v.live() != 2 || len(fresh.orders) != 0 {
					t.Fatalf("report: %d live, %d journaled; want 2 and 0", r.v.live(), len(fresh.orders))
				}
			case UnknownCancel:
				if r.v.live() != 0 {
					t.Fatalf("cancel: %d still live", r.v.live())
				}
			case UnknownAdopt:
				if fresh.count(JLive) != 2 || r.v.live() != 2 {
					t.Fatalf("adopt: %d journaled live, %d live at the venue; want 2 and 2", fresh.count(JLive), r.v.live())
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := r2.l.Shutdown(ctx); err != nil || r.v.live() != 0 {
					t.Fatalf("adopted orders not cancelled at shutdown: %v, %d live", err, r.v.live())
				}
			}
		})
	}
}

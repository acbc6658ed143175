package loop

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// hangVenue makes book reads, or the cancels of chosen orders, hang until
// their context ends, and reports each hang's start on hung.
type hangVenue struct {
	*fakeVenue
	mu        sync.Mutex
	hangBooks bool
	stuckN    int    // how many more cancels of the stuck order hang
	stuck     string // the order of the first cancel made while stuckN > 0
	hung      chan string
	cancelled chan string // cancels answered
}

func newHangVenue(fv *fakeVenue) *hangVenue {
	return &hangVenue{fakeVenue: fv, hung: make(chan string, 64), cancelled: make(chan string, 64)}
}

func (h *hangVenue) Books(ctx context.Context, ids []string) ([]exchange.OrderBook, error) {
	h.mu.Lock()
	hang := h.hangBooks
	h.mu.Unlock()
	if hang {
		h.hung <- "books"
		<-ctx.Done()
		return nil, fmt.Errorf("books: %w", ctx.Err())
	}
	return h.fakeVenue.Books(ctx, ids)
}

func (h *hangVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	h.mu.Lock()
	if h.stuck == "" && h.stuckN > 0 {
		h.stuck = id
	}
	hang := h.stuck == id && h.stuckN > 0
	if hang {
		h.stuckN--
	}
	h.mu.Unlock()
	if hang {
		h.hung <- id
		<-ctx.Done()
		return nil, fmt.Errorf("cancel: %w", ctx.Err())
	}
	r, err := h.fakeVenue.CancelOrder(ctx, id)
	h.cancelled <- id
	return r, err
}

// guardRig is a loop over two markets with 4 orders live at lt0, run by
// its own goroutine (Run) on a fake clock, and its guard, whose every look
// is reported on looks.
type guardRig struct {
	v     *hangVenue
	j     *memJournal
	clock *clocktest.Clock
	kill  *risk.KillSwitch
	l     *Loop
	g     *Guard
	looks chan GuardReport
}

func newGuardRig(t *testing.T, maxBookAge time.Duration, gc GuardConfig) *guardRig {
	t.Helper()
	ms := nMarkets(2)
	fv := newFakeVenue()
	for _, m := range ms {
		fv.setBook(m.TokenIDs[strategy.Yes], "0.48", "0.52", lt0)
		fv.setBook(m.TokenIDs[strategy.No], "0.48", "0.52", lt0)
	}
	r := &guardRig{v: newHangVenue(fv), j: newMemJournal(), clock: clocktest.New(lt0), looks: make(chan GuardReport, 1)}
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	if r.kill, err = risk.NewKillSwitch(risk.KillConfig{MaxBookAge: maxBookAge}); err != nil {
		t.Fatal(err)
	}
	r.l, err = New(Config{Markets: ms, Estimators: strategy.DefaultEstimatorParams(), Kill: r.kill, Cycle: time.Second, MaxBookAge: maxBookAge,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
		r.v, &fakeSigner{}, r.j, r.clock, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gc.Observe = func(rep GuardReport) { r.looks <- rep }
	if r.g, err = NewGuard(r.l, gc); err != nil {
		t.Fatal(err)
	}
	if err := r.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fv.live() != 4 {
		t.Fatalf("%d live orders, want 4", fv.live())
	}
	return r
}

// runBoth starts the loop's Run and the guard's Run; the returned stop ends
// both and waits for them.
func (r *guardRig) runBoth(t *testing.T, hung string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = r.l.Run(ctx, nil) })
	if got := recv(t, r.v.hung, "the loop's hung request"); hung != "" && got != hung {
		t.Fatalf("the loop hung on %q, want %q", got, hung)
	}
	wg.Go(func() { _ = r.g.Run(ctx) })
	bctx, bcancel := context.WithTimeout(ctx, waitFor)
	defer bcancel()
	if err := r.clock.BlockUntil(bctx, 1); err != nil { // the guard waits for its first look
		t.Fatal("the guard did not start")
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

// step moves the clock one period and returns the guard's look at that
// instant.
func (r *guardRig) step(t *testing.T) GuardReport {
	t.Helper()
	r.clock.Advance(r.g.Config().Period)
	rep := recv(t, r.looks, "the guard's look")
	if !rep.At.Equal(r.clock.Now()) {
		t.Fatalf("look at %s, want at %s", rep.At.Sub(lt0), r.clock.Now().Sub(lt0))
	}
	return rep
}

// When POST /books hangs, no cycle completes and the loop's own stale-book
// protection never runs: the guard must cancel every live order within the
// book-age limit plus one of its periods after the last book the loop
// judged, trip the kill switch as stale_quotes, say so once, and not wait
// for the loop's stuck request.
func TestGuardCancelsWhenBooksHang(t *testing.T) {
	const maxBookAge = 5 * time.Second
	// OnBlind must be heard before the look's cancels go out: the daemon
	// fails /readyz there, so that it never reads ready while orders are
	// being pulled.
	var r *guardRig
	var blindLive []int
	var blindMu sync.Mutex
	onBlind := func(reason risk.TripReason, detail string) {
		blindMu.Lock()
		defer blindMu.Unlock()
		if reason != risk.TripStaleQuotes || detail == "" {
			t.Errorf("OnBlind(%v, %q)", reason, detail)
		}
		blindLive = append(blindLive, r.v.live())
	}
	r = newGuardRig(t, maxBookAge, GuardConfig{Period: time.Second, MaxCycleGap: time.Minute, OnBlind: onBlind})
	lastBook := r.clock.Now() // the books the first cycle judged are stamped lt0
	r.v.mu.Lock()
	r.v.hangBooks = true
	r.v.mu.Unlock()
	stop := r.runBoth(t, "books")
	defer stop()

	var trip GuardReport
	for r.v.live() > 0 {
		rep := r.step(t)
		if age := rep.At.Sub(lastBook); age > maxBookAge+time.Second {
			t.Fatalf("%d orders still live %s after the last book (limit %s + period 1s)", r.v.live(), age, maxBookAge)
		}
		if rep.Reason != 0 {
			trip = rep
			continue
		}
		if rep.At.Sub(lastBook) > maxBookAge {
			t.Fatalf("at +%s the books are older than %s and the guard saw nothing", rep.At.Sub(lastBook), maxBookAge)
		}
	}
	if !trip.Started || !trip.Tripped || trip.Reason != risk.TripStaleQuotes || trip.Cancelled != 4 || trip.Left != 0 {
		t.Fatalf("the look that cancelled: %+v", trip)
	}
	blindMu.Lock()
	if len(blindLive) != 1 || blindLive[0] != 4 {
		t.Fatalf("OnBlind heard with %v orders live, want once with all 4 (before the cancels)", blindLive)
	}
	blindMu.Unlock()
	if tripped, why := r.kill.Tripped(); !tripped || why.Reason != risk.TripStaleQuotes {
		t.Fatalf("kill switch: %v %+v, want tripped as stale_quotes", tripped, why)
	}
	// The next look, still blind, finds nothing left to do and says nothing new.
	if rep := r.step(t); rep.Reason != risk.TripStaleQuotes || rep.Started || rep.Tripped || rep.Cancelled != 0 || rep.Left != 0 {
		t.Fatalf("the look after: %+v", rep)
	}
	stop()
	// The loop reads the orders the guard cancelled back and journals them.
	if err := r.l.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if nf, _ := r.j.NonFinal(); len(nf) != 0 || r.j.count(JCanceled) != 4 {
		t.Fatalf("journal: %d non-final, %d cancelled; want 0 and 4", len(nf), r.j.count(JCanceled))
	}
}

// When a DELETE /order hangs, the cycle stops after reading fresh books;
// once no cycle has completed for MaxCycleGap the guard cancels what is
// live (stale_loop), concurrently and with its own timeout: one order whose
// cancel hangs for the guard too costs only that order, and is tried again
// at the next look.
func TestGuardCancelsWhenCancelHangs(t *testing.T) {
	const gap = 3 * time.Second
	r := newGuardRig(t, time.Minute, GuardConfig{Period: time.Second, MaxCycleGap: gap, RequestTimeout: 2 * time.Second})
	lastCycle := r.clock.Now()
	// Every quote moves, so the next cycle cancels every order; the first
	// order it cancels hangs, for the loop and then for the guard's first
	// two tries.
	r.v.mu.Lock()
	r.v.stuckN = 3
	r.v.mu.Unlock()
	move(r.v.fakeVenue, r.clock, nMarkets(2), "0.58", "0.62")
	stop := r.runBoth(t, "")
	defer stop()
	stuck := r.v.stuck

	var rep GuardReport
	for rep.Reason == 0 {
		if r.clock.Now().Sub(lastCycle) > gap+time.Second {
			t.Fatalf("no guard action %s after the last completed cycle (max gap %s + period 1s)", r.clock.Now().Sub(lastCycle), gap)
		}
		r.clock.Advance(time.Second)
		select {
		case rep = <-r.looks:
		case h := <-r.v.hung:
			if h != stuck {
				t.Fatalf("%s hung", h)
			}
			// The guard's cancel of the stuck order hangs: the three others
			// are cancelled meanwhile, then its own timeout ends the look.
			for range 3 {
				recv(t, r.v.cancelled, "the other cancels while the guard's cancel of one hangs")
			}
			if n := r.v.live(); n != 1 {
				t.Fatalf("%d orders live while the guard's cancel of one hangs, want 1", n)
			}
			r.clock.Advance(2 * time.Second)
			rep = recv(t, r.looks, "the look that cancelled")
		}
	}
	if rep.Reason != risk.TripStaleLoop || !rep.Started || !rep.Tripped || rep.Cancelled != 3 || rep.Left != 1 {
		t.Fatalf("the look that cancelled: %+v", rep)
	}
	if at := rep.At.Sub(lastCycle); at > gap+time.Second {
		t.Fatalf("the guard stepped in %s after the last completed cycle (max gap %s + period 1s)", at, gap)
	}
	if tripped, why := r.kill.Tripped(); !tripped || why.Reason != risk.TripStaleLoop {
		t.Fatalf("kill switch: %v %+v, want tripped as stale_loop", tripped, why)
	}
	// That look ran past the next one's time (its cancel hung to its 2 s
	// timeout), so the guard looks again at once: the stuck order's cancel
	// hangs once more; then, at the next look (again at once), it goes
	// through.
	if h := recv(t, r.v.hung, "the guard's second try"); h != stuck {
		t.Fatalf("%s hung", h)
	}
	r.clock.Advance(2 * time.Second)
	if rep := recv(t, r.looks, "the second look"); rep.At.Sub(lastCycle) != 6*time.Second || rep.Cancelled != 0 || rep.Left != 1 || rep.Started {
		t.Fatalf("second look at +%s: %+v", rep.At.Sub(lastCycle), rep)
	}
	if rep := recv(t, r.looks, "the third look"); rep.At.Sub(lastCycle) != 8*time.Second || rep.Cancelled != 1 || rep.Left != 0 {
		t.Fatalf("third look at +%s: %+v", rep.At.Sub(lastCycle), rep)
	}
	if r.v.live() != 0 {
		t.Fatalf("%d orders live", r.v.live())
	}
}

// A working loop handles a single stale market itself (its orders are
// cancelled by the cycle that sees the book stale): the guard must stay
// out of it, and never trip while cycles complete.
func TestGuardQuietWhileCyclesComplete(t *testing.T) {
	const maxBookAge = 5 * time.Second
	r := newGuardRig(t, maxBookAge, GuardConfig{Period: time.Second, MaxCycleGap: 3 * time.Second})
	ms := nMarkets(2)
	for range 15 {
		r.clock.Advance(time.Second)
		now := r.clock.Now()
		// Market 1's book keeps its old timestamp: the exchange stopped
		// updating it.
		r.v.setBook(ms[0].TokenIDs[strategy.Yes], "0.48", "0.52", now)
		r.v.setBook(ms[0].TokenIDs[strategy.No], "0.48", "0.52", now)
		if rep := r.g.look(context.Background(), now); rep.Reason != 0 {
			t.Fatalf("at +%s, between cycles: %+v", now.Sub(lt0), rep)
		}
		if err := r.l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	live := r.v.liveByToken()
	if live["yes1"]+live["no1"] != 0 || live["yes0"]+live["no0"] != 2 {
		t.Fatalf("live orders by token %v: want the stale market's cancelled by the loop, the other's kept", live)
	}
	if tripped, why := r.kill.Tripped(); tripped {
		t.Fatalf("kill switch tripped: %+v", why)
	}
}

func TestNewGuardNeedsATimingClock(t *testing.T) {
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Config{Markets: nMarkets(1), Estimators: strategy.DefaultEstimatorParams(), Params: Params{Model: model}}, newFakeVenue(), &fakeSigner{}, newMemJournal(), sleepOnlyClock{}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewGuard(l, GuardConfig{}); err == nil {
		t.Fatal("NewGuard accepted a clock that cannot time")
	}
	if _, err := New(Config{Markets: nMarkets(1), Estimators: strategy.DefaultEstimatorParams(), Params: Params{Model: model}, RequestTimeout: time.Second}, newFakeVenue(), &fakeSigner{},
		newMemJournal(), sleepOnlyClock{}, zerolog.Nop(), nil); err == nil {
		t.Fatal("New accepted a request timeout with a clock that cannot time")
	}
	if _, err := New(Config{Markets: nMarkets(1), Estimators: strategy.DefaultEstimatorParams(), Params: Params{Model: model}, RequestTimeout: time.Second}, newFakeVenue(), &fakeSigner{},
		newMemJournal(), exchange.SystemClock{}, zerolog.Nop(), nil); err != nil {
		t.Fatalf("New refused the system clock: %v", err)
	}
}

// sleepOnlyClock is a clock like a backtest's: Now and Sleep only.
type sleepOnlyClock struct{}

func (sleepOnlyClock) Now() time.Time                             { return lt0 }
func (sleepOnlyClock) Sleep(context.Context, time.Duration) error { return nil }

// The guard sends only what the DELETE budget takes (at least one a look),
// least recently tried first: under a tight budget every order is cancelled
// in turn, one a look, and none is refused.
func TestGuardCancelsWithinBudget(t *testing.T) {
	r := newGuardRig(t, 5*time.Second, GuardConfig{Period: time.Second, MaxCycleGap: time.Minute})
	bv := &budgetVenue{fakeVenue: r.v.fakeVenue, clock: r.clock, tokens: 1, last: r.clock.Now()}
	r.l.venue = bv // the loop is not running: only the guard uses it
	for i := 0; i < 10 && r.v.live() > 0; i++ {
		r.clock.Advance(time.Second)
		rep := r.g.look(context.Background(), r.clock.Now())
		if rep.Reason != 0 && rep.Cancelled != 1 {
			t.Fatalf("look at +%s: %+v, want one cancel a look", r.clock.Now().Sub(lt0), rep)
		}
	}
	if r.v.live() != 0 || bv.refused != 0 {
		t.Fatalf("%d live, %d cancels refused over the budget", r.v.live(), bv.refused)
	}
}

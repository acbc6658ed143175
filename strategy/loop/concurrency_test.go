package loop

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// waitFor bounds a test's wait for something another goroutine does: only
// a failing test ever waits this long in real time.
const waitFor = 10 * time.Second

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitFor):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// nMarkets returns n test markets with distinct token ids.
func nMarkets(n int) []strategy.Market {
	out := make([]strategy.Market, n)
	for i := range out {
		m := testMarket()
		m.ConditionID = fmt.Sprintf("0xcond%d", i)
		m.TokenIDs = [2]string{fmt.Sprintf("yes%d", i), fmt.Sprintf("no%d", i)}
		out[i] = m
	}
	return out
}

// slowVenue makes the book reads of one token, and the first cancels of
// chosen orders, hang until their context ends (a slow body, a server that
// never answers). It reports each hanging call's start on started, each
// answered book read's first token on answered and each answered cancel on
// cancelled.
type slowVenue struct {
	*fakeVenue
	clock      *clocktest.Clock
	slowToken  string
	slowCancel map[string]int // order id → how many more of its cancels hang
	started    chan string
	answered   chan string
	cancelled  chan string

	mu     sync.Mutex
	bookAt map[string]time.Time // first token of a batch → when its last read was made
}

func newSlowVenue(fv *fakeVenue, clock *clocktest.Clock) *slowVenue {
	return &slowVenue{fakeVenue: fv, clock: clock, slowCancel: map[string]int{},
		started: make(chan string, 64), answered: make(chan string, 64), cancelled: make(chan string, 64), bookAt: map[string]time.Time{}}
}

func (s *slowVenue) Books(ctx context.Context, ids []string) ([]exchange.OrderBook, error) {
	s.mu.Lock()
	s.bookAt[ids[0]] = s.clock.Now()
	slow := slices.Contains(ids, s.slowToken)
	s.mu.Unlock()
	if slow {
		s.started <- "books " + ids[0]
		<-ctx.Done()
		return nil, fmt.Errorf("books: %w", ctx.Err())
	}
	b, err := s.fakeVenue.Books(ctx, ids)
	s.answered <- ids[0]
	return b, err
}

func (s *slowVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	s.mu.Lock()
	slow := s.slowCancel[id] > 0
	if slow {
		s.slowCancel[id]--
	}
	s.mu.Unlock()
	if slow {
		s.started <- "cancel " + id
		<-ctx.Done()
		return nil, fmt.Errorf("cancel: %w", ctx.Err())
	}
	r, err := s.fakeVenue.CancelOrder(ctx, id)
	s.cancelled <- id
	return r, err
}

// newConcRig builds a started loop over markets with one market per book
// batch, the given concurrency and a 1 s request timeout.
func newConcRig(t *testing.T, markets []strategy.Market, conc int, v func(*fakeVenue, *clocktest.Clock) Venue) (*fakeVenue, Venue, *memJournal, *clocktest.Clock, *Loop) {
	t.Helper()
	fv := newFakeVenue()
	for _, m := range markets {
		fv.setBook(m.TokenIDs[strategy.Yes], "0.48", "0.52", lt0)
		fv.setBook(m.TokenIDs[strategy.No], "0.48", "0.52", lt0)
	}
	clock := clocktest.New(lt0)
	venue := v(fv, clock)
	j := newMemJournal()
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 100})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Config{Markets: markets, Estimators: strategy.DefaultEstimatorParams(), Kill: kill, BooksBatch: 2,
		Concurrency: conc, RequestTimeout: time.Second, MaxBookAge: 10 * time.Second,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
		venue, &fakeSigner{}, j, clock, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return fv, venue, j, clock, l
}

// liveByToken counts live orders per token.
func (v *fakeVenue) liveByToken() map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[string]int{}
	for _, o := range v.orders {
		if o.Status == exchange.StatusLive {
			out[o.AssetID]++
		}
	}
	return out
}

// One slow POST /books batch must not delay the other markets: the batches
// are read at once, the slow one ends at the request timeout, its market
// is held (its orders stay, nothing new is placed there), and the others
// are re-quoted on the books read at the cycle's start. Before, the
// batches ran one after another with no deadline of their own: the others
// waited for the slow one.
func TestLoopSlowBookBatchDelaysNoOtherMarket(t *testing.T) {
	ms := nMarkets(3)
	var sv *slowVenue
	fv, _, _, clock, l := newConcRig(t, ms, 4, func(fv *fakeVenue, c *clocktest.Clock) Venue {
		sv = newSlowVenue(fv, c)
		return sv
	})
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		recv(t, sv.answered, "the first cycle's book reads")
	}
	if fv.live() != 6 {
		t.Fatalf("%d live orders after the first cycle, want 6 (a bid on each token of 3 markets)", fv.live())
	}
	placed := fv.placed

	// Every market moves; market 0's book read is slow.
	clock.Advance(time.Second)
	t1 := clock.Now()
	for _, m := range ms {
		fv.setBook(m.TokenIDs[strategy.Yes], "0.58", "0.62", t1)
		fv.setBook(m.TokenIDs[strategy.No], "0.38", "0.42", t1)
	}
	sv.mu.Lock()
	sv.slowToken = ms[0].TokenIDs[strategy.Yes]
	sv.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- l.Cycle(context.Background()) }()
	recv(t, sv.started, "the slow book read")
	for range 2 {
		if tok := recv(t, sv.answered, "the other batches' answers while the slow one is pending"); strings.HasPrefix(tok, "yes0") {
			t.Fatal("the slow batch answered first")
		}
	}
	clock.Advance(time.Second) // the request timeout: the slow read gives up
	if err := recv(t, done, "the cycle"); err != nil {
		t.Fatalf("cycle with one slow batch of three: %v", err)
	}
	if took := clock.Now().Sub(t1); took != time.Second {
		t.Fatalf("the cycle took %s of clock time, want the request timeout (1s)", took)
	}
	for _, m := range ms[1:] {
		if at := sv.bookAt[m.TokenIDs[strategy.Yes]]; !at.Equal(t1) {
			t.Fatalf("market %s's books were read at +%s, want at the cycle's start", m.ConditionID, at.Sub(t1))
		}
	}
	live := fv.liveByToken()
	if live["yes0"] != 1 || live["no0"] != 1 {
		t.Fatalf("the slow market's orders: %v, want its 2 orders kept", live)
	}
	if fv.placed-placed != 4 {
		t.Fatalf("%d orders placed, want 4 (the two fast markets re-quoted, the slow one held)", fv.placed-placed)
	}
}

// Every batch failing still fails the cycle: the loop saw nothing.
func TestLoopEveryBookBatchFailingFailsCycle(t *testing.T) {
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	bv := &errBooksVenue{fakeVenue: newFakeVenue(), err: &exchange.APIError{Area: "clob", Status: 500, Message: "down"}}
	l, err := New(Config{Markets: nMarkets(3), Estimators: strategy.DefaultEstimatorParams(), BooksBatch: 2, Concurrency: 4,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{SizeFrac: 0.1}}}, bv, &fakeSigner{}, newMemJournal(), clocktest.New(lt0), zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Cycle(context.Background()); err == nil || !strings.Contains(err.Error(), "read books") {
		t.Fatalf("every batch failing: err %v, want a failed cycle", err)
	}
}

type errBooksVenue struct {
	*fakeVenue
	err error
}

func (e *errBooksVenue) Books(context.Context, []string) ([]exchange.OrderBook, error) {
	return nil, e.err
}

// recJournal records every journal write in order.
type recJournal struct {
	*memJournal
	log []string
}

func (r *recJournal) RecordIntents(in []Intent, now time.Time) error {
	for _, i := range in {
		r.log = append(r.log, "intent "+i.Hash+" "+i.TokenID+" "+i.Price.String())
	}
	return r.memJournal.RecordIntents(in, now)
}

func (r *recJournal) Apply(b *Batch) error {
	for _, h := range b.Sent {
		r.log = append(r.log, "sent "+h)
	}
	for _, u := range b.Updates {
		r.log = append(r.log, "update "+u.Hash+" "+string(u.State)+" "+u.SizeMatched.String())
	}
	for _, f := range b.Fills {
		r.log = append(r.log, "fill "+f.OrderHash+" "+f.Size.String())
	}
	return r.memJournal.Apply(b)
}

// shuffleVenue lets goroutines overtake each other before each answer, so
// that concurrent calls come back in a varying order.
type shuffleVenue struct {
	*fakeVenue
	mu  sync.Mutex
	rng *rand.Rand
}

func (s *shuffleVenue) shuffle() {
	s.mu.Lock()
	n := s.rng.IntN(64)
	s.mu.Unlock()
	for range n {
		runtime.Gosched()
	}
}

func (s *shuffleVenue) Books(ctx context.Context, ids []string) ([]exchange.OrderBook, error) {
	s.shuffle()
	return s.fakeVenue.Books(ctx, ids)
}

func (s *shuffleVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	s.shuffle()
	return s.fakeVenue.CancelOrder(ctx, id)
}

func (s *shuffleVenue) Order(ctx context.Context, id string) (*exchange.Order, error) {
	s.shuffle()
	return s.fakeVenue.Order(ctx, id)
}

func (s *shuffleVenue) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	s.shuffle()
	return s.fakeVenue.PlaceOrders(ctx, items)
}

// The journal sees the same writes in the same order whether a cycle's
// requests run one at a time or concurrently with answers arriving in any
// order: answers are applied in a fixed order.
func TestLoopConcurrentAnswersAppliedInFixedOrder(t *testing.T) {
	run := func(conc int) []string {
		ms := nMarkets(4)
		fv := newFakeVenue()
		for _, m := range ms {
			fv.setBook(m.TokenIDs[strategy.Yes], "0.48", "0.52", lt0)
			fv.setBook(m.TokenIDs[strategy.No], "0.48", "0.52", lt0)
		}
		v := &shuffleVenue{fakeVenue: fv, rng: rand.New(rand.NewPCG(uint64(conc), 7))}
		clock := clocktest.New(lt0)
		j := &recJournal{memJournal: newMemJournal()}
		model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02, 0.04}, Sizes: []float64{10, 10}})
		if err != nil {
			t.Fatal(err)
		}
		l, err := New(Config{Markets: ms, Estimators: strategy.DefaultEstimatorParams(), BooksBatch: 2, MaxBatch: 2, Concurrency: conc,
			Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
			v, &fakeSigner{}, j, clock, zerolog.Nop(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		mids := []string{"0.50", "0.60", "0.40", "0.55"}
		for c, mid := range mids {
			clock.Advance(time.Second)
			p := decimal.RequireFromString(mid)
			for _, m := range ms {
				fv.setBook(m.TokenIDs[strategy.Yes], p.Sub(decimal.RequireFromString("0.02")).String(), p.Add(decimal.RequireFromString("0.02")).String(), clock.Now())
				fv.setBook(m.TokenIDs[strategy.No], decimal.NewFromInt(1).Sub(p).Sub(decimal.RequireFromString("0.02")).String(),
					decimal.NewFromInt(1).Sub(p).Add(decimal.RequireFromString("0.02")).String(), clock.Now())
			}
			if c == 2 {
				fv.fill("yes1", exchange.Buy, "3")
			}
			if err := l.Cycle(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		return j.log
	}
	seq, conc := run(1), run(8)
	if len(seq) < 40 {
		t.Fatalf("only %d journal writes: the scenario does too little", len(seq))
	}
	if !slices.Equal(seq, conc) {
		for i := range min(len(seq), len(conc)) {
			if seq[i] != conc[i] {
				t.Fatalf("journal write %d: sequential %q, concurrent %q (%d and %d writes)", i, seq[i], conc[i], len(seq), len(conc))
			}
		}
		t.Fatalf("sequential run wrote %d, concurrent %d", len(seq), len(conc))
	}
}

// The kill switch tripping while the cycle's cancels are in flight (the
// guard trips it from its own goroutine) stops the cycle's placements.
func TestLoopTripDuringCancelsPlacesNothing(t *testing.T) {
	ms := []strategy.Market{testMarket()}
	v, j, clock, kill, l := newHookRig(t, ms, nil)
	mustCycle(t, l)
	v.beforeCancel = func(string) { kill.Trip(risk.TripStaleLoop, "test", clock.Now()) }
	move(v.fakeVenue, clock, ms, "0.58", "0.62")
	mustCycle(t, l)
	if v.placed != 2 {
		t.Fatalf("%d orders placed after the kill switch tripped mid-cycle", v.placed-2)
	}
	if n := len(j.orders); n != 2 {
		t.Fatalf("%d orders journaled, want only the first cycle's 2: nothing is signed after the trip", n)
	}
}

// Shutdown cancels concurrently with a total deadline: one slow DELETE
// holds back no other cancel, gives up at the request timeout and is sent
// again, and nothing stays live. Before, cancels went one after another
// and a slow one held every following one.
func TestLoopShutdownSlowCancel(t *testing.T) {
	ms := nMarkets(3)
	var sv *slowVenue
	fv, _, j, clock, l := newConcRig(t, ms, 8, func(fv *fakeVenue, c *clocktest.Clock) Venue {
		sv = newSlowVenue(fv, c)
		return sv
	})
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		recv(t, sv.answered, "the first cycle's book reads")
	}
	if fv.live() != 6 {
		t.Fatalf("%d live, want 6", fv.live())
	}
	var first string
	for _, o := range l.allLive() {
		if first == "" || o.Hash < first {
			first = o.Hash
		}
	}
	sv.mu.Lock()
	sv.slowCancel[first] = 1 // the first DELETE of the first order in line hangs
	sv.mu.Unlock()
	t0 := clock.Now()
	ctx, cancel := withTimeout(context.Background(), clock, 5*time.Second) // shutdown.cancel_timeout
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- l.Shutdown(ctx) }()
	recv(t, sv.started, "the slow cancel")
	for range 5 {
		recv(t, sv.cancelled, "the other cancels while the slow one is pending")
	}
	clock.Advance(time.Second) // the request timeout: the slow cancel gives up
	// The order is still live: Shutdown pauses, reads it back and cancels it
	// again. Its pause and the total deadline are then the clock's waiters.
	bctx, bcancel := context.WithTimeout(context.Background(), waitFor)
	defer bcancel()
	if err := clock.BlockUntil(bctx, 2); err != nil {
		t.Fatal("shutdown did not pause after its first round")
	}
	clock.Advance(200 * time.Millisecond)
	if err := recv(t, done, "shutdown"); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if fv.live() != 0 {
		t.Fatalf("%d orders live after shutdown", fv.live())
	}
	if nf, _ := j.NonFinal(); len(nf) != 0 {
		t.Fatalf("%d non-final journal orders after shutdown", len(nf))
	}
	if took := clock.Now().Sub(t0); took > 2*time.Second {
		t.Fatalf("shutdown took %s of clock time with one slow cancel (request timeout 1s)", took)
	}
}

// A DELETE that never answers holds Shutdown only to its total deadline,
// and the other orders are cancelled at once.
func TestLoopShutdownHungCancelEndsAtDeadline(t *testing.T) {
	ms := nMarkets(3)
	var sv *slowVenue
	fv, _, _, clock, l := newConcRig(t, ms, 8, func(fv *fakeVenue, c *clocktest.Clock) Venue {
		sv = newSlowVenue(fv, c)
		return sv
	})
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	var first string
	for _, o := range l.allLive() {
		if first == "" || o.Hash < first {
			first = o.Hash
		}
	}
	sv.mu.Lock()
	sv.slowCancel[first] = 1000
	sv.mu.Unlock()
	t0 := clock.Now()
	ctx, cancel := withTimeout(context.Background(), clock, 5*time.Second)
	defer cancel()
	bctx, bcancel := context.WithTimeout(context.Background(), waitFor)
	defer bcancel()
	fctx, finished := context.WithCancel(bctx)
	done := make(chan error, 1)
	go func() {
		done <- l.Shutdown(ctx)
		finished()
	}()
	for range 5 {
		recv(t, sv.cancelled, "the other cancels while the hung one is pending")
	}
	// Every waiter is an event of the shutdown: a request's timeout, its
	// pause between rounds, or its deadline.
	for clock.BlockUntil(fctx, 2) == nil {
		clock.AdvanceToNext()
	}
	var err error
	select {
	case err = <-done:
	default:
		t.Fatal("shutdown neither ended nor waited")
	}
	if err == nil || !strings.Contains(err.Error(), "1 orders may still be live") {
		t.Fatalf("shutdown with a hung cancel: %v, want an error naming the 1 order", err)
	}
	if took := clock.Now().Sub(t0); took != 5*time.Second {
		t.Fatalf("shutdown ended after %s of clock time, want its 5s deadline", took)
	}
	if fv.live() != 1 {
		t.Fatalf("%d orders live, want only the hung one", fv.live())
	}
}

// budgetVenue has a DELETE budget of one token a second of clock time (at
// most one held), and refuses a cancel over it at once, as the exchange
// client's limiter does when the wait would pass the request's deadline.
type budgetVenue struct {
	*fakeVenue
	clock   *clocktest.Clock
	mu      sync.Mutex
	tokens  int
	last    time.Time
	refused int
}

func (b *budgetVenue) refillLocked() {
	now := b.clock.Now()
	for !b.last.Add(time.Second).After(now) {
		b.last = b.last.Add(time.Second)
		b.tokens = 1
	}
}

func (b *budgetVenue) Budget(time.Time) exchange.Budget {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refillLocked()
	return exchange.Budget{Orders: 1000, Cancels: b.tokens}
}

func (b *budgetVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	b.mu.Lock()
	b.refillLocked()
	if b.tokens == 0 {
		b.refused++
		b.mu.Unlock()
		return nil, &exchange.WaitError{Endpoint: "DELETE /order", Bucket: "delete_order_burst", Delay: time.Second}
	}
	b.tokens--
	b.mu.Unlock()
	return b.fakeVenue.CancelOrder(ctx, id)
}

// When the kill switch has tripped and the DELETE budget is tight,
// concurrent cancels must not race for it (the losers fail at random, and
// an order can starve): each cycle sends what the budget takes, least
// recently tried first, so every order is cancelled in turn and no cancel
// is refused.
func TestLoopTrippedCancelsShareATightBudget(t *testing.T) {
	ms := nMarkets(2)
	var bv *budgetVenue
	fv, _, _, clock, l := newConcRig(t, ms, 8, func(fv *fakeVenue, c *clocktest.Clock) Venue {
		bv = &budgetVenue{fakeVenue: fv, clock: c, tokens: 1, last: c.Now()}
		return bv
	})
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fv.live() != 4 {
		t.Fatalf("%d live, want 4", fv.live())
	}
	l.cfg.Kill.Halt("test", clock.Now())
	for c := 1; c <= 4; c++ {
		clock.Advance(time.Second)
		if err := l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
		if fv.live() != 4-c {
			t.Fatalf("after %d tripped cycles with one cancel a second: %d live, want %d", c, fv.live(), 4-c)
		}
	}
	if bv.refused != 0 {
		t.Fatalf("%d cancels sent over the budget and refused", bv.refused)
	}
}

// Under a tight budget, the orders the exchange is known to hold are
// cancelled before those it did not know at their last read (sent, answer
// lost, maybe never arrived): those cost a token each and cancel nothing.
func TestLoopTrippedCancelsKnownOrdersFirst(t *testing.T) {
	ms := nMarkets(2)
	var bv *budgetVenue
	fv, _, _, clock, l := newConcRig(t, ms, 8, func(fv *fakeVenue, c *clocktest.Clock) Venue {
		bv = &budgetVenue{fakeVenue: fv, clock: c, tokens: 1, last: c.Now()}
		return bv
	})
	fv.placeErr = errors.New("answer lost")
	if err := l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The two first placements never reached the exchange.
	fv.mu.Lock()
	for _, h := range []string{"0xhash0001", "0xhash0002"} {
		delete(fv.orders, h)
	}
	fv.mu.Unlock()
	if fv.live() != 2 || len(l.allLive()) != 4 {
		t.Fatalf("%d live at the exchange, %d tracked; want 2 and 4", fv.live(), len(l.allLive()))
	}
	l.cfg.Kill.Halt("test", clock.Now())
	for range 2 {
		clock.Advance(time.Second)
		if err := l.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if fv.live() != 0 {
		t.Fatalf("%d orders the exchange holds still live after two cycles with one cancel each", fv.live())
	}
}

// throttledVenue answers 429 with a 30 s Retry-After to every cancel or
// every placement while told to, and counts the calls (from any goroutine).
type throttledVenue struct {
	*fakeVenue
	mu                              sync.Mutex
	cancels, places                 int
	throttleCancels, throttlePlaces bool
}

func (v *throttledVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	v.mu.Lock()
	v.cancels++
	on := v.throttleCancels
	v.mu.Unlock()
	if on {
		return nil, &exchange.APIError{Area: "clob", Endpoint: "DELETE /order", Status: 429, RetryAfter: 30 * time.Second}
	}
	return v.fakeVenue.CancelOrder(ctx, id)
}

func (v *throttledVenue) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	v.mu.Lock()
	v.places++
	on := v.throttlePlaces
	v.mu.Unlock()
	if on {
		return nil, &exchange.APIError{Area: "clob", Endpoint: "POST /orders", Status: 429, RetryAfter: 30 * time.Second}
	}
	return v.fakeVenue.PlaceOrders(ctx, items)
}

func (v *throttledVenue) counts() (cancels, places int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cancels, v.places
}

func (v *throttledVenue) set(cancels, places bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.throttleCancels, v.throttlePlaces = cancels, places
}

// The throttle hold of a 429 (its Retry-After) holds the concurrent
// sender too: once a cancel is throttled no cancel is sent, in that cycle
// (those already in flight aside) or the next ones, until the Retry-After
// has passed; a failed cancel is its market's last error.
func TestLoopConcurrentThrottledCancelsWait(t *testing.T) {
	ms := nMarkets(3)
	var tv *throttledVenue
	fv, _, _, clock, l := newConcRig(t, ms, 8, func(fv *fakeVenue, _ *clocktest.Clock) Venue {
		tv = &throttledVenue{fakeVenue: fv}
		return tv
	})
	mustCycle(t, l)
	if fv.live() != 6 {
		t.Fatalf("%d live after the first cycle, want 6", fv.live())
	}
	tv.set(true, false)
	move(fv, clock, ms, "0.58", "0.62")
	mustCycle(t, l)
	sent, _ := tv.counts()
	if sent < 1 || fv.live() != 6 || fv.placed != 6 {
		t.Fatalf("in the cycle of the 429: %d cancels sent, %d live, %d placed; want at least 1, 6 and 6", sent, fv.live(), fv.placed)
	}
	noted := 0
	for _, ms := range l.Status().Markets {
		if strings.Contains(ms.LastError, "cancel of ") && strings.Contains(ms.LastError, "failed") && !ms.LastErrorAt.IsZero() {
			noted++
		}
	}
	if noted == 0 {
		t.Fatal("no market has the throttled cancel as its last error")
	}
	tv.set(false, false)
	move(fv, clock, ms, "0.58", "0.62") // +1 s
	mustCycle(t, l)
	if again, _ := tv.counts(); again != sent || fv.live() != 6 || fv.placed != 6 {
		t.Fatalf("1 s into a 30 s Retry-After: %d cancels sent (had %d), %d live, %d placed", again, sent, fv.live(), fv.placed)
	}
	clock.Advance(30 * time.Second)
	move(fv, clock, ms, "0.58", "0.62")
	mustCycle(t, l)
	if after, _ := tv.counts(); after != sent+6 || fv.live() != 6 || fv.placed != 12 {
		t.Fatalf("after the Retry-After: %d cancels sent (want %d), %d live (want 6), %d placed (want 12)", after, sent+6, fv.live(), fv.placed)
	}
}

// The same for placements: once a batch is throttled no batch is sent
// until the Retry-After has passed; the intents held back are failed (they
// never left), and the batch's markets have it as their last error.
func TestLoopConcurrentThrottledPlacesWait(t *testing.T) {
	ms := nMarkets(3)
	var tv *throttledVenue
	fv, _, j, clock, l := newConcRig(t, ms, 8, func(fv *fakeVenue, _ *clocktest.Clock) Venue {
		tv = &throttledVenue{fakeVenue: fv}
		return tv
	})
	l.cfg.MaxBatch = 1
	tv.set(false, true)
	_ = l.Cycle(context.Background())
	_, sent := tv.counts()
	if sent < 1 || sent > 6 || fv.placed != 0 {
		t.Fatalf("in the cycle of the 429: %d batches sent, %d placed", sent, fv.placed)
	}
	if n := j.count(JFailed); n != 6-sent {
		t.Fatalf("%d intents marked failed, want the %d held back", n, 6-sent)
	}
	noted := 0
	for _, ms := range l.Status().Markets {
		if strings.Contains(ms.LastError, "placing a batch failed") {
			noted++
		}
	}
	if noted == 0 {
		t.Fatal("no market has the throttled batch as its last error")
	}
	tv.set(false, false)
	move(fv, clock, ms, "0.48", "0.52") // +1 s
	_ = l.Cycle(context.Background())
	if _, again := tv.counts(); again != sent || fv.placed != 0 {
		t.Fatalf("1 s into a 30 s Retry-After: %d batches sent (had %d), %d placed", again, sent, fv.placed)
	}
	clock.Advance(31 * time.Second)
	move(fv, clock, ms, "0.48", "0.52")
	mustCycle(t, l)
	if _, after := tv.counts(); after <= sent || fv.placed == 0 {
		t.Fatalf("after the Retry-After: %d batches sent (had %d), %d placed", after, sent, fv.placed)
	}
}

// failBooksVenue fails every book read of one token's batch.
type failBooksVenue struct {
	*fakeVenue
	token string
}

func (v *failBooksVenue) Books(ctx context.Context, ids []string) ([]exchange.OrderBook, error) {
	if slices.Contains(ids, v.token) {
		return nil, &exchange.APIError{Area: "clob", Endpoint: "POST /books", Status: 500, Message: "internal_error: injected fault"}
	}
	return v.fakeVenue.Books(ctx, ids)
}

// A market held because its book batch failed, while the cycle went on
// with the others, has that failure as its last error; the others none.
func TestLoopHeldMarketNotesItsError(t *testing.T) {
	ms := nMarkets(3)
	_, _, _, _, l := newConcRig(t, ms, 8, func(fv *fakeVenue, _ *clocktest.Clock) Venue {
		return &failBooksVenue{fakeVenue: fv, token: "yes1"}
	})
	mustCycle(t, l)
	for i, st := range l.Status().Markets {
		held := strings.Contains(st.LastError, "reading its books failed") && strings.Contains(st.LastError, "injected fault")
		if held != (i == 1) {
			t.Errorf("market %s: last error %q", st.ConditionID, st.LastError)
		}
	}
}

package exchange

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/clocktest"
)

func TestBucketShape(t *testing.T) {
	tests := []struct {
		c         Cap
		fill      float64
		burst     int
		perWindow float64
	}{
		{Cap{80, 10 * time.Second}, 0.95, 3, 73},          // T = 76
		{Cap{2400, 10 * time.Second}, 0.95, 114, 2166},    // T = 2280
		{Cap{24000, 10 * time.Minute}, 0.95, 1140, 21660}, // T = 22800
		{Cap{150, 10 * time.Second}, 0.95, 7, 135.5},      // T = 142.5
		{Cap{20, time.Second}, 0.95, 1, 18},               // T = 19
		{Cap{10, time.Second}, 0.95, 1, 8.5},              // burst forced to 1
		{Cap{1, time.Second}, 0.95, 1, 0.475},             // T < B: refill fill/2
		{Cap{100, time.Second}, 1, 1, 99},                 // fill 1: burst 1
		{Cap{100, time.Second}, 0.5, 25, 25},              // T = 50
		{Cap{5000, 10 * time.Second}, 0.9, 450, 4050},     // T = 4500
	}
	for _, tt := range tests {
		b, pw := BucketShape(tt.c, tt.fill)
		if b != tt.burst || math.Abs(pw-tt.perWindow) > 1e-9 {
			t.Errorf("BucketShape(%v, %v) = %d, %v; want %d, %v", tt.c, tt.fill, b, pw, tt.burst, tt.perWindow)
		}
		if tt.c.Requests > 1 && float64(b)+pw > tt.fill*float64(tt.c.Requests)+1e-9 {
			t.Errorf("%v: burst %d + refill %v exceeds fill × the cap", tt.c, b, pw)
		}
	}
	// every default cap: no window holds more than 95 % of C (the issue's
	// bound, counted from outside), and the refill reaches 90 % of C
	l := DefaultLimits()
	for i, c := range l.caps() {
		b, pw := BucketShape(c, l.Fill)
		if float64(b)+pw > 0.95*float64(c.Requests)+1e-9 || pw < 0.90*float64(c.Requests)-1e-9 {
			t.Errorf("%s %v: burst %d refill %v", bucketID(i), c, b, pw)
		}
	}
}

func TestLimitsValidate(t *testing.T) {
	ok := DefaultLimits()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	mut := []struct {
		name string
		f    func(*Limits)
		want string
	}{
		{"fill 0", func(l *Limits) { l.Fill = 0 }, "fill"},
		{"fill above 1", func(l *Limits) { l.Fill = 1.01 }, "fill"},
		{"fill NaN", func(l *Limits) { l.Fill = math.NaN() }, "fill"},
		{"zero requests", func(l *Limits) { l.CLOBBooks.Requests = 0 }, "clob_books"},
		{"zero window", func(l *Limits) { l.PostOrderSustained.Window = 0 }, "post_order_sustained"},
	}
	for _, m := range mut {
		l := DefaultLimits()
		m.f(&l)
		if err := l.Validate(); err == nil || !strings.Contains(err.Error(), m.want) {
			t.Errorf("%s: err = %v, want one naming %q", m.name, err, m.want)
		}
	}
	l := DefaultLimits()
	l.Fill = 1
	if err := l.Validate(); err != nil {
		t.Errorf("fill 1: %v", err)
	}
}

// TestEndpointBuckets pins the endpoint → bucket map that docs/protocol.md
// shows.
func TestEndpointBuckets(t *testing.T) {
	want := map[endpointID]string{
		epTrades:            "data_general data_trades",
		epClosedPositions:   "data_general",
		epHolders:           "data_general",
		epCatalogMarket:     "catalog_general catalog_markets catalog_events_markets",
		epEvent:             "catalog_general catalog_events catalog_events_markets",
		epEventBySlug:       "catalog_general catalog_events catalog_events_markets",
		epSeries:            "catalog_general",
		epTags:              "catalog_general catalog_tags",
		epEvents:            "catalog_general catalog_events catalog_events_markets",
		epMarkets:           "clob_general",
		epMarket:            "clob_general",
		epSamplingMarkets:   "clob_general",
		epSimplifiedMarkets: "clob_general",
		epBooks:             "clob_general clob_books",
		epSpreads:           "clob_general",
		epOrder:             "clob_general",
		epPlaceOrders:       "clob_general post_order_burst*15 post_order_sustained*15",
		epCancelOrder:       "clob_general delete_order_burst delete_order_sustained",
		epBuilderTrades:     "clob_general",
	}
	for id := endpointID(0); id < numEndpoints; id++ {
		var parts []string
		for _, c := range endpointSpecs[id].costs(15) {
			s := c.b.String()
			if c.n != 1 {
				s += "*15"
			}
			parts = append(parts, s)
		}
		if got := strings.Join(parts, " "); got != want[id] {
			t.Errorf("%s: buckets %q, want %q", endpointSpecs[id].Name(), got, want[id])
		}
		s := endpointSpecs[id]
		wantIdem := !(s.method == "POST" && s.pattern == "/orders") && s.method != "DELETE"
		if s.idempotent != wantIdem {
			t.Errorf("%s: idempotent %v", s.Name(), s.idempotent)
		}
		wantAuth := id == epOrder || id == epPlaceOrders || id == epCancelOrder
		if s.auth != wantAuth {
			t.Errorf("%s: auth %v", s.Name(), s.auth)
		}
	}
}

func TestLimiterBurstThenWait(t *testing.T) {
	// Context deadlines are real time, so this clock starts at the real
	// present.
	start := time.Now()
	clk := clocktest.New(start)
	l := DefaultLimits()
	lm, err := newLimiter(l, clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	costs := endpointSpecs[epBooks].costs(1)
	for i := range 3 { // burst of clob_books is 3
		if err := lm.wait(ctx, clk, "books", costs); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	// the fourth must wait 1/7.3 s; the clock is only moved by us
	done := make(chan error, 1)
	go func() { done <- lm.wait(ctx, clk, "books", costs) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("fourth request admitted without waiting: %v", err)
	default:
	}
	clk.AdvanceToNext()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if waited := clk.Now().Sub(start); waited < time.Second*10/73 || waited > time.Second*10/73+time.Microsecond {
		t.Errorf("waited %v, want 10s/73", waited)
	}

	// a cost above the burst can never be met
	if err := lm.wait(ctx, clk, "orders", endpointSpecs[epPlaceOrders].costs(115)); err == nil || !strings.Contains(err.Error(), "burst") {
		t.Errorf("cost above burst: %v", err)
	}

	// a wait past the deadline fails fast and takes nothing
	before := lm.snapshot(clk.Now())[bCLOBGeneral].Tokens
	dctx, cancel := context.WithDeadline(ctx, clk.Now().Add(time.Millisecond))
	defer cancel()
	var we *WaitError
	if err := lm.wait(dctx, clk, "books", costs); !errors.As(err, &we) || we.Bucket != "clob_books" {
		t.Fatalf("err = %v, want *WaitError on clob_books", err)
	}
	if after := lm.snapshot(clk.Now())[bCLOBGeneral].Tokens; after != before {
		t.Errorf("a failed wait took tokens from clob_general: %v → %v", before, after)
	}

	// a cancelled wait returns the ctx error
	cctx, ccancel := context.WithCancel(ctx)
	go func() { done <- lm.wait(cctx, clk, "books", costs) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	ccancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}

func TestBudgetAndSnapshot(t *testing.T) {
	clk := clocktest.New(t0)
	c, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	if b := c.Budget(clk.Now()); b.Orders != 114 || b.Cancels != 114 {
		t.Errorf("initial budget %+v, want the burst 114/114", b)
	}
	ctx := context.Background()
	for range 6 {
		if err := c.lim.wait(ctx, clk, "orders", endpointSpecs[epPlaceOrders].costs(19)); err != nil {
			t.Fatal(err)
		}
	}
	if b := c.Budget(clk.Now()); b.Orders != 0 {
		t.Errorf("budget after 114 orders: %+v", b)
	}
	clk.Advance(100 * time.Millisecond) // the burst bucket refills 216.6/s
	if b := c.Budget(clk.Now()); b.Orders != 21 {
		t.Errorf("budget 100ms later: %+v, want 21", b)
	}
	clk.Advance(time.Second) // full again: 114 in burst, 1000+ in sustained
	if b := c.Budget(clk.Now()); b.Orders != 114 || b.Cancels != 114 {
		t.Errorf("budget 1.1s later: %+v, want 114/114", b)
	}
	snap := c.Buckets(clk.Now())
	if len(snap) != int(numBuckets) || snap[bPostOrderBurst].Name != "post_order_burst" || snap[bPostOrderBurst].Admitted != 114 ||
		snap[bCLOBGeneral].Admitted != 6 || snap[bPostOrderBurst].Burst != 114 || math.Abs(snap[bPostOrderBurst].RatePerSec-216.6) > 1e-9 {
		t.Errorf("snapshot: %+v", snap[bPostOrderBurst])
	}
	if c.Limits() != DefaultLimits() {
		t.Error("Limits() differs from the defaults given")
	}
}

// admission is one request's units taken from one bucket at one instant.
type admission struct {
	at time.Time
	n  int
}

// maxInWindow returns the most units taken in any closed window of length w.
func maxInWindow(adm []admission, w time.Duration) int {
	best, sum, j := 0, 0, 0
	for i := range adm {
		for j < len(adm) && !adm[j].at.After(adm[i].at.Add(w)) {
			sum += adm[j].n
			j++
		}
		best = max(best, sum)
		sum -= adm[i].n
	}
	return best
}

func TestMaxInWindow(t *testing.T) {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	adm := []admission{{at(0), 1}, {at(500), 2}, {at(1000), 1}, {at(1001), 5}, {at(3000), 1}}
	tests := []struct {
		w    time.Duration
		want int
	}{{0, 5}, {time.Second, 8}, {500 * time.Millisecond, 6}, {2 * time.Second, 9}, {time.Hour, 10}}
	for _, tt := range tests {
		if got := maxInWindow(adm, tt.w); got != tt.want {
			t.Errorf("maxInWindow(%v) = %d, want %d", tt.w, got, tt.want)
		}
	}
}

// hammerScenario is a set of limits, the workers that hammer them (one
// goroutine per entry, each calling its endpoint in a loop with items body
// items) and the buckets their demand must saturate. A bucket only counts
// as saturated when it binds every request that uses it: where an area's
// general bucket binds, requests that need an endpoint bucket as well get
// a smaller share of it (all-or-nothing admission favours the requests
// with fewer buckets), so the scenarios keep those cases apart.
type hammerScenario struct {
	name      string
	limits    func() Limits
	workers   []endpointID
	items     int
	saturated []bucketID
	span      time.Duration // 0: an hour (ten minutes with -short)
}

// smallLimits are the spec's caps scaled down (same windows) so that a
// simulated hour runs quickly; every cap stays at least 20 so that a
// bucket's refill reaches 90 % of it, and the POST /order burst bucket
// holds a 15-order batch (B = floor(0.95·320·0.05) = 15).
func smallLimits() Limits {
	const w = 10 * time.Second
	l := DefaultLimits()
	l.DataGeneral, l.DataTrades = Cap{50, w}, Cap{20, w}
	l.CatalogGeneral, l.CatalogEvents, l.CatalogMarkets, l.CatalogEventsMarkets, l.CatalogTags = Cap{1000, w}, Cap{25, w}, Cap{20, w}, Cap{1000, w}, Cap{20, w}
	l.CLOBGeneral, l.CLOBBooks = Cap{1000, w}, Cap{20, w}
	l.PostOrderBurst, l.PostOrderSustained = Cap{320, w}, Cap{3000, 10 * time.Minute}
	l.DeleteOrderBurst, l.DeleteOrderSustained = Cap{40, w}, Cap{600, 10 * time.Minute}
	return l
}

func hammerScenarios() []hammerScenario {
	return []hammerScenario{
		{
			name:   "endpoint caps bind",
			limits: smallLimits,
			workers: []endpointID{epPlaceOrders, epPlaceOrders, epCancelOrder, epBooks, epBooks, epEvents, epEventBySlug,
				epCatalogMarket, epTags, epTags, epTrades, epTrades},
			items: 15,
			saturated: []bucketID{bPostOrderSustained, bDeleteOrderSustained, bCLOBBooks, bCatalogEvents, bCatalogMarkets,
				bCatalogTags, bDataTrades},
		},
		{
			name: "area and combined caps bind",
			limits: func() Limits {
				const w = 10 * time.Second
				l := smallLimits()
				l.CatalogEvents, l.CatalogMarkets, l.CatalogEventsMarkets = Cap{200, w}, Cap{200, w}, Cap{30, w}
				l.CLOBGeneral, l.CLOBBooks = Cap{40, w}, Cap{200, w}
				l.DataGeneral, l.DataTrades = Cap{30, w}, Cap{200, w}
				l.Fill = 0.9
				return l
			},
			workers:   []endpointID{epEvents, epCatalogMarket, epEvent, epBooks, epMarkets, epSpreads, epCancelOrder, epTrades, epClosedPositions},
			items:     1,
			saturated: []bucketID{bCatalogEventsMarkets, bCLOBGeneral, bDataGeneral},
		},
		{
			name:   "spec defaults",
			limits: DefaultLimits,
			workers: []endpointID{epPlaceOrders, epPlaceOrders, epCancelOrder, epBooks, epEvents, epCatalogMarket,
				epTags, epTrades},
			items: 15,
			saturated: []bucketID{bPostOrderSustained, bDeleteOrderSustained, bCLOBBooks, bCatalogEvents, bCatalogMarkets,
				bCatalogTags, bDataTrades},
			span: 20 * time.Minute,
		},
	}
}

// TestLimiterHammer runs goroutines against the limiter on a fake clock for
// a simulated hour (ten minutes with -short), records every admission per
// bucket, and checks that no closed window of any cap ever holds more than
// its window ceiling (Fill × the cap), and that each saturated bucket
// reaches at least its refill r·W per window over the run.
func TestLimiterHammer(t *testing.T) {
	span := time.Hour
	if testing.Short() {
		span = 10 * time.Minute
	}
	for _, sc := range hammerScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			span := span
			if sc.span > 0 && !testing.Short() {
				span = sc.span
			}
			limits := sc.limits()
			clk := clocktest.New(t0)
			lm, err := newLimiter(limits, clk.Now(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var adm [numBuckets][]admission
			lm.admitHook = func(now time.Time, costs []cost) {
				for _, c := range costs {
					adm[c.b] = append(adm[c.b], admission{now, c.n})
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, len(sc.workers))
			for _, ep := range sc.workers {
				s := &endpointSpecs[ep]
				costs := s.costs(sc.items)
				wg.Go(func() {
					for {
						if err := lm.wait(ctx, clk, s.Name(), costs); err != nil {
							if ctx.Err() == nil {
								errs <- err
							}
							return
						}
					}
				})
			}
			// Move time only when every worker waits: deterministic, and
			// the demand on each bucket never lets up.
			watchdog, stop := context.WithTimeout(ctx, 3*time.Minute)
			defer stop()
			end := t0.Add(span)
			steps := 0
			for clk.Now().Before(end) {
				if err := clk.BlockUntil(watchdog, len(sc.workers)); err != nil {
					t.Fatalf("workers stopped waiting after %d steps at %v: %v", steps, clk.Now().Sub(t0), err)
				}
				clk.AdvanceToNext()
				steps++
			}
			cancel()
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("worker: %v", err)
			}

			caps := limits.caps()
			for id := range numBuckets {
				c := caps[id]
				if got := maxInWindow(adm[id], c.Window); got > ceilingOf(limits, id) {
					t.Errorf("%s: %d units in one window of %s, cap %d, ceiling %d", id, got, c.Window, c.Requests, ceilingOf(limits, id))
				}
			}
			for _, id := range sc.saturated {
				c := caps[id]
				units := 0
				for _, a := range adm[id] {
					if !a.at.After(end) {
						units += a.n
					}
				}
				capacity := float64(c.Requests) * span.Seconds() / c.Window.Seconds()
				frac := float64(units) / capacity
				_, pw := BucketShape(c, limits.Fill)
				t.Logf("%-24s %7d units, %.4f of the cap (%s) over %s", id, units, frac, c, span)
				if want := pw / float64(c.Requests); frac < want-1e-9 {
					t.Errorf("%s reached %.4f of its cap, want >= %.4f (r·W/C)", id, frac, want)
				}
			}
		})
	}
}

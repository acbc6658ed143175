package exchange

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	full := func(c time.Duration) time.Duration { return c }
	half := func(c time.Duration) time.Duration { return c / 2 }
	wild := func(c time.Duration) time.Duration { return 3 * c }
	p := RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, Jitter: full}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for k, w := range want {
		if got := p.backoff(k + 1); got != w*time.Millisecond {
			t.Errorf("backoff(%d) = %v, want %v", k+1, got, w*time.Millisecond)
		}
	}
	p.Jitter = half
	if got := p.backoff(3); got != 200*time.Millisecond {
		t.Errorf("half jitter backoff(3) = %v", got)
	}
	p.Jitter = wild
	if got := p.backoff(1); got != 100*time.Millisecond {
		t.Errorf("a jitter above the ceiling must be clamped, got %v", got)
	}
	p.Jitter = nil
	for range 100 {
		if d := p.backoff(2); d < 0 || d > 200*time.Millisecond {
			t.Fatalf("random backoff %v out of [0, 200ms]", d)
		}
	}
	if (RetryPolicy{MaxAttempts: 1}).backoff(3) != 0 {
		t.Error("zero delays must give zero backoff")
	}
}

func TestRetryPolicyValidate(t *testing.T) {
	bad := []RetryPolicy{{}, {MaxAttempts: 1, BaseDelay: -1}, {MaxAttempts: 2, BaseDelay: time.Second, MaxDelay: time.Millisecond}}
	for _, p := range bad {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if err := DefaultRetryPolicy().Validate(); err != nil {
		t.Error(err)
	}
}

// flaky answers the given statuses in turn (0 = a truncated body, -1 =
// close the connection without an answer) and
// then 200 with ok.
type flaky struct {
	mu       sync.Mutex
	statuses []int
	ok       string
	hits     int
	times    []time.Time
	now      func() time.Time
	// retryAfter is the Retry-After of its 429s ("2" if empty).
	retryAfter string
}

// count returns how many requests arrived.
func (f *flaky) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits
}

func (f *flaky) serve(w http.ResponseWriter, _ *http.Request, _ []byte) {
	f.mu.Lock()
	i := f.hits
	f.hits++
	f.times = append(f.times, f.now())
	f.mu.Unlock()
	if i >= len(f.statuses) {
		reply(w, 200, f.ok)
		return
	}
	switch s := f.statuses[i]; s {
	case 0: // a truncated body: the connection dies mid-answer
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"da`))
	case -1: // no answer at all
		hj, _ := w.(http.Hijacker)
		conn, _, err := hj.Hijack()
		if err == nil {
			_ = conn.Close()
		}
	case 429:
		ra := f.retryAfter
		if ra == "" {
			ra = "2"
		}
		w.Header().Set("Retry-After", ra)
		reply(w, s, `{"error":"slow down"}`)
	default:
		reply(w, s, `{"error":"boom"}`)
	}
}

func TestReadsAreRetried(t *testing.T) {
	reads := []struct {
		name, pattern, ok string
		call              func(e *testEnv) error
	}{
		{"GET /markets", "GET /clob/markets", `{"data":[]}`, func(e *testEnv) error { _, err := e.c.Markets(e.ctx, ""); return err }},
		{"POST /books", "POST /clob/books", `[]`, func(e *testEnv) error { _, err := e.c.Books(e.ctx, []string{"1"}); return err }},
		{"POST /spreads", "POST /clob/spreads", `{}`, func(e *testEnv) error { _, err := e.c.Spreads(e.ctx, []string{"1"}); return err }},
		{"GET /trades", "GET /data/trades", `[]`, func(e *testEnv) error { _, err := e.c.Trades(e.ctx, TradesParams{}); return err }},
		{"GET /events", "GET /catalog/events", `[]`, func(e *testEnv) error { _, err := e.c.Events(e.ctx, EventsParams{}); return err }},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			var retries []int
			e := setup(t, WithRetry(RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Jitter: noJitter}),
				WithObserver(Observer{Retry: func(_ string, attempt int, _ time.Duration, _ error) { retries = append(retries, attempt) }}))
			e.autoAdvance()
			statuses := []int{500, 0, 429}
			if r.name == "POST /books" {
				statuses[1] = -1 // net/http replays a GET itself after a dropped connection
			}
			f := &flaky{statuses: statuses, ok: r.ok, now: e.clk.Now}
			e.handle(r.pattern, f.serve)
			if err := r.call(e); err != nil {
				t.Fatalf("call: %v", err)
			}
			if f.count() != 4 || len(retries) != 3 {
				t.Errorf("hits = %d, retries = %v; want 4 and 3", f.count(), retries)
			}
		})
	}
}

func TestRetryGivesUpAfterMaxAttempts(t *testing.T) {
	e := setup(t)
	f := &flaky{statuses: []int{500, 502, 503, 504}, now: e.clk.Now}
	e.handle("GET /clob/markets", f.serve)
	_, err := e.c.Markets(e.ctx, "")
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 503 || !errors.Is(err, ErrServer) {
		t.Fatalf("err = %v, want the third attempt's 503", err)
	}
	if f.count() != 3 {
		t.Errorf("hits = %d, want MaxAttempts 3", f.count())
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404} {
		e := setup(t)
		f := &flaky{statuses: []int{status}, now: e.clk.Now}
		e.handle("GET /clob/markets", f.serve)
		if _, err := e.c.Markets(e.ctx, ""); err == nil {
			t.Fatalf("%d: no error", status)
		}
		if f.count() != 1 {
			t.Errorf("%d: hits = %d, want 1", status, f.count())
		}
	}
}

func TestOrderWritesAreNeverRetried(t *testing.T) {
	item := []PlacementItem{{Order: SignedOrder{Side: Buy}, OrderType: GTC}}
	for _, status := range []int{500, 503, 429, 0, -1} {
		e := setup(t, WithRetry(RetryPolicy{MaxAttempts: 5, Jitter: noJitter}))
		place := &flaky{statuses: []int{status}, ok: `[{"success":true}]`, now: e.clk.Now}
		cancel := &flaky{statuses: []int{status}, ok: `{}`, now: e.clk.Now}
		e.handle("POST /clob/orders", place.serve)
		e.handle("DELETE /clob/order", cancel.serve)
		if _, err := e.c.PlaceOrders(e.ctx, item); err == nil {
			t.Errorf("status %d: PlaceOrders succeeded", status)
		}
		if _, err := e.c.CancelOrder(e.ctx, "0x1"); err == nil {
			t.Errorf("status %d: CancelOrder succeeded", status)
		}
		if place.count() != 1 || cancel.count() != 1 {
			t.Errorf("status %d: POST /orders sent %d times, DELETE /order %d times; want 1 each", status, place.count(), cancel.count())
		}
	}
}

// TestRetryAfterIsHonoured: the retry after a 429 with Retry-After: 2 comes
// no sooner than 2 s later on the client's clock, even with a smaller
// backoff, and the observer hears of the 429.
func TestRetryAfterIsHonoured(t *testing.T) {
	var limited []time.Duration
	var delays []time.Duration
	e := setup(t, WithObserver(Observer{
		RateLimited: func(_ string, ra time.Duration) { limited = append(limited, ra) },
		Retry:       func(_ string, _ int, d time.Duration, _ error) { delays = append(delays, d) },
	}))
	e.autoAdvance()
	f := &flaky{statuses: []int{429}, ok: `{"data":[]}`, now: e.clk.Now}
	e.handle("GET /clob/markets", f.serve)
	if _, err := e.c.Markets(e.ctx, ""); err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 {
		t.Fatalf("hits = %d", f.count())
	}
	if gap := f.times[1].Sub(f.times[0]); gap < 2*time.Second {
		t.Errorf("retry came %v after the 429, want >= 2s", gap)
	}
	if len(limited) != 1 || limited[0] != 2*time.Second || len(delays) != 1 || delays[0] != 2*time.Second {
		t.Errorf("observer: limited %v, delays %v", limited, delays)
	}
}

// TestRateLimitedBlocksEndpoint: a 429 on POST /orders (not retried)
// blocks the POST /order buckets until Retry-After has passed, and only
// those: a cancel still goes out. A call whose deadline comes first fails
// fast with a *WaitError, and Budget shows zero orders.
//
// Context deadlines are real time, so the fake clock is moved to the real
// present first.
func TestRateLimitedBlocksEndpoint(t *testing.T) {
	e := setup(t, WithMaxRetryAfter(2*time.Hour))
	e.clk.Set(time.Now())
	f := &flaky{statuses: []int{429}, ok: `[{"success":true}]`, now: e.clk.Now, retryAfter: "3600"}
	e.handle("POST /clob/orders", f.serve)
	e.handle("DELETE /clob/order", func(w http.ResponseWriter, _ *http.Request, _ []byte) { reply(w, 200, `{"canceled":["0x1"]}`) })
	item := []PlacementItem{{Order: SignedOrder{Side: Buy}, OrderType: GTC}}
	if _, err := e.c.PlaceOrders(e.ctx, item); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	if b := e.c.Budget(e.clk.Now()); b.Orders != 0 || b.Cancels == 0 {
		t.Errorf("budget while blocked = %+v", b)
	}
	if _, err := e.c.CancelOrder(e.ctx, "0x1"); err != nil {
		t.Errorf("a 429 on POST /orders held back a cancel: %v", err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	_, err := e.c.PlaceOrders(ctx, item)
	var we *WaitError
	if !errors.As(err, &we) || !errors.Is(err, ErrRateLimited) || we.Delay < 59*time.Minute || we.Bucket != "post_order_burst" {
		t.Fatalf("err = %v, want *WaitError on post_order_burst", err)
	}
	if f.count() != 1 {
		t.Errorf("the blocked call reached the server")
	}
	e.clk.Advance(time.Hour)
	if _, err := e.c.PlaceOrders(e.ctx, item); err != nil {
		t.Fatalf("after Retry-After: %v", err)
	}
	if b := e.c.Budget(e.clk.Now()); b.Orders == 0 {
		t.Errorf("budget after unblock = %+v", b)
	}
}

// TestRetryAfterPastDeadline: when the wait a 429 asks for passes the
// context's deadline the client returns the 429 at once.
func TestRetryAfterPastDeadline(t *testing.T) {
	e := setup(t, WithMaxRetryAfter(2*time.Hour))
	e.clk.Set(time.Now())
	f := &flaky{statuses: []int{429}, ok: `{"data":[]}`, now: e.clk.Now, retryAfter: "3600"}
	e.handle("GET /clob/markets", f.serve)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	_, err := e.c.Markets(ctx, "")
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 429 || f.count() != 1 {
		t.Fatalf("err = %v, hits = %d", err, f.count())
	}
}

func TestCanceledContextIsNotRetried(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(e.ctx)
	var n atomic.Int64
	e.handle("GET /clob/markets", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		n.Add(1)
		cancel()
		reply(w, 500, `{"error":"x"}`)
	})
	_, err := e.c.Markets(ctx, "")
	if err == nil || n.Load() != 1 {
		t.Fatalf("err = %v, hits = %d", err, n.Load())
	}
}

// TestRetryAfterIsCapped: a Retry-After of a day (in seconds or as a date)
// blocks the cancel buckets only for the client's maximum (the default
// DefaultMaxRetryAfter, 1 min), a retried read
// sleeps no longer than it, and the observer hears the ask and the cap.
func TestRetryAfterIsCapped(t *testing.T) {
	type capped struct {
		endpoint    string
		asked, used time.Duration
	}
	var (
		mu      sync.Mutex
		caps    []capped
		limited []time.Duration
	)
	e := setup(t, WithObserver(Observer{
		RateLimited: func(_ string, ra time.Duration) { mu.Lock(); limited = append(limited, ra); mu.Unlock() },
		RetryAfterCapped: func(ep string, asked, used time.Duration) {
			mu.Lock()
			caps = append(caps, capped{ep, asked, used})
			mu.Unlock()
		},
	}))
	del := &flaky{statuses: []int{429}, ok: `{"canceled":["0x1"]}`, now: e.clk.Now, retryAfter: "86400"}
	e.handle("DELETE /clob/order", del.serve)
	if _, err := e.c.CancelOrder(e.ctx, "0x1"); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want the 429", err)
	}
	if b := e.c.Budget(e.clk.Now().Add(59 * time.Second)); b.Cancels != 0 {
		t.Errorf("cancels unblocked before the cap: %+v", b)
	}
	if b := e.c.Budget(e.clk.Now().Add(61 * time.Second)); b.Cancels == 0 {
		t.Errorf("cancels still blocked after the 1 min cap (Retry-After 86400 s): %+v", b)
	}

	// A read retried after an HTTP date a day ahead sleeps the cap, not the day.
	e.autoAdvance()
	date := e.clk.Now().Add(24 * time.Hour).UTC().Format(http.TimeFormat)
	rd := &flaky{statuses: []int{503}, ok: `{"data":[]}`, now: e.clk.Now}
	e.handle("GET /clob/markets", func(w http.ResponseWriter, r *http.Request, b []byte) {
		w.Header().Set("Retry-After", date)
		rd.serve(w, r, b)
	})
	start := e.clk.Now()
	if _, err := e.c.Markets(e.ctx, ""); err != nil {
		t.Fatal(err)
	}
	if waited := e.clk.Now().Sub(start); waited > time.Minute+time.Second {
		t.Errorf("the retried read waited %s, want at most the 1 min cap", waited)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []capped{{"clob DELETE /order", 24 * time.Hour, time.Minute}, {"clob GET /markets", 24 * time.Hour, time.Minute}}
	if len(caps) != 2 || caps[0] != want[0] || caps[1] != want[1] {
		t.Errorf("RetryAfterCapped calls %+v, want %+v", caps, want)
	}
	if len(limited) != 1 || limited[0] != 24*time.Hour {
		t.Errorf("RateLimited heard %v, want the 24h asked", limited)
	}
}

func TestWithMaxRetryAfterValidates(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithMaxRetryAfter(d)); err == nil {
			t.Errorf("WithMaxRetryAfter(%s) accepted", d)
		}
	}
}

// Issue 20 point 7: a read answered 425 (too early: the exchange is not
// serving yet) is retried like a 503, and both are ErrNotReady.
func TestNotReadyReadIsRetried(t *testing.T) {
	e := setup(t, WithRetry(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Jitter: noJitter}))
	e.autoAdvance()
	f := &flaky{statuses: []int{425, 503}, ok: `{"data":[]}`, now: e.clk.Now}
	e.handle("GET /clob/markets", f.serve)
	if _, err := e.c.Markets(e.ctx, ""); err != nil {
		t.Fatalf("after 425 and 503: %v", err)
	}
	if f.count() != 3 {
		t.Fatalf("hits = %d, want 3", f.count())
	}
	e2 := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
	e2.handle("GET /clob/markets", (&flaky{statuses: []int{425}, now: e2.clk.Now}).serve)
	if _, err := e2.c.Markets(e2.ctx, ""); !errors.Is(err, ErrNotReady) || errors.Is(err, ErrServer) {
		t.Fatalf("425: %v, want ErrNotReady and not ErrServer", err)
	}
}

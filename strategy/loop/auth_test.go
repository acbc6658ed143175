package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// failVenue is a fakeVenue whose authenticated calls fail with err while
// it is set, and that counts the calls it failed.
type failVenue struct {
	*fakeVenue
	mu     sync.Mutex
	err    error
	failed map[string]int
}

func newFailVenue() *failVenue {
	v := newFakeVenue()
	v.setBook("yes", "0.48", "0.52", lt0)
	v.setBook("no", "0.48", "0.52", lt0)
	return &failVenue{fakeVenue: v, failed: map[string]int{}}
}

func (v *failVenue) set(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.err = err
}

func (v *failVenue) fail(call string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		v.failed[call]++
	}
	return v.err
}

func (v *failVenue) count(call string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.failed[call]
}

func (v *failVenue) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	if err := v.fail("place"); err != nil {
		return nil, err
	}
	return v.fakeVenue.PlaceOrders(ctx, items)
}

func (v *failVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	if err := v.fail("cancel"); err != nil {
		return nil, err
	}
	return v.fakeVenue.CancelOrder(ctx, id)
}

func (v *failVenue) Order(ctx context.Context, id string) (*exchange.Order, error) {
	if err := v.fail("order"); err != nil {
		return nil, err
	}
	return v.fakeVenue.Order(ctx, id)
}

// stepClock is a clock whose Sleep moves time at once; a Sleep that would
// pass deadline (when set) returns context.DeadlineExceeded there.
type stepClock struct {
	mu       sync.Mutex
	now      time.Time
	deadline time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.deadline.IsZero() && !c.now.Add(d).Before(c.deadline) {
		c.now = c.deadline
		return context.DeadlineExceeded
	}
	c.now = c.now.Add(d)
	return ctx.Err()
}

// syncBuffer is a log sink safe for the fan-out's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines returns the logged lines whose message starts with msg.
func (s *syncBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, ln := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if ln == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(ln), &m); err != nil {
			t.Fatalf("log line %q: %v", ln, err)
		}
		if s, _ := m["message"].(string); strings.HasPrefix(s, msg) {
			out = append(out, m)
		}
	}
	return out
}

type authRig struct {
	v     *failVenue
	j     *memJournal
	clock *stepClock
	kill  *risk.KillSwitch
	l     *Loop
	log   *syncBuffer
}

// newAuthRig is a loop on one market whose venue fails on demand, with a
// kill switch that would also trip on order errors, its log captured.
func newAuthRig(t *testing.T) *authRig {
	t.Helper()
	r := &authRig{v: newFailVenue(), j: newMemJournal(), clock: &stepClock{now: lt0}, log: &syncBuffer{}}
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02, 0.03}, Sizes: []float64{10, 10}})
	if err != nil {
		t.Fatal(err)
	}
	if r.kill, err = risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 3}); err != nil {
		t.Fatal(err)
	}
	r.l, err = New(Config{Markets: []strategy.Market{testMarket()}, Estimators: strategy.DefaultEstimatorParams(), Kill: r.kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
		r.v, &fakeSigner{}, r.j, r.clock, zerolog.New(r.log), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.cycle(t)
	if n := r.v.live(); n != 4 {
		t.Fatalf("%d live orders after the first cycle, want 4", n)
	}
	return r
}

func (r *authRig) cycle(t *testing.T) {
	t.Helper()
	_ = r.l.Cycle(context.Background())
	r.clock.mu.Lock()
	r.clock.now = r.clock.now.Add(time.Second)
	r.clock.mu.Unlock()
}

var errRevoked = &exchange.APIError{Area: exchange.AreaCLOB, Endpoint: "DELETE /order", Status: http.StatusUnauthorized,
	Message: "unauthorized: invalid api key"}

// A 401 on the authenticated calls while the loop runs trips the kill
// switch with reason auth (latched, over the consecutive-errors trip the
// same failures would cause), logs one line for the refusal however many
// requests are refused, and a summary with the count at shutdown; while
// refused, authenticated requests go out one at a time, further and
// further apart. The shutdown sends one cancel to see whether the
// credentials are still refused, then stops with a *CredentialsError
// counting the orders that may still be live. Before, nothing tripped on
// the refusal itself, every order was read (and, once the error count
// tripped the switch, cancelled) every cycle, every failed cancel was a
// line of its own, and the shutdown retried every order every 200 ms
// until its deadline.
func TestLoopCredentialsRefusedWhileRunning(t *testing.T) {
	r := newAuthRig(t)
	r.v.set(errRevoked)
	for range 30 {
		r.cycle(t)
	}
	tripped, trip := r.kill.Tripped()
	if !tripped || trip.Reason != risk.TripAuth || !strings.Contains(trip.Detail, "401") || !strings.Contains(trip.Detail, "invalid api key") {
		t.Fatalf("kill switch: tripped %v, %+v; want reason auth naming the 401 and its message", tripped, trip)
	}
	if st := r.l.Status(); !st.Tripped || !strings.HasPrefix(st.TripReason, "auth: ") {
		t.Fatalf("status: tripped %v, reason %q", st.Tripped, st.TripReason)
	}
	// While refused, one authenticated request goes out 1 s after the
	// refusal, then 2, 4, 8 s…: at 0, 1, 3, 7 and 15 s of these 30; the
	// others fail without being sent.
	refused := r.v.count("order") + r.v.count("cancel") + r.v.count("place")
	if refused < 4 || refused > 6 {
		t.Fatalf("%d refused requests in 30 s, want 5 (one at 0, 1, 3, 7 and 15 s)", refused)
	}
	held := r.l.auth.held
	if held == 0 {
		t.Fatal("no request held back while the credentials were refused")
	}
	if got := r.log.lines(t, MsgCredentialsRefused); len(got) != 1 || got[0]["level"] != "error" || got[0]["status"] != 401.0 {
		t.Fatalf("%d lines %v for %d refused requests, want one error line with status 401", len(got), got, refused)
	}
	if got := r.log.lines(t, "cancel failed"); len(got) != 0 {
		t.Fatalf("%d cancel-failed lines for refused credentials: %v", len(got), got)
	}

	cancelsBefore := r.v.count("cancel")
	r.clock.deadline = r.clock.Now().Add(10 * time.Second)
	err := r.l.Shutdown(context.Background())
	var ce *CredentialsError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCredentialsRefused) || ce.Live != 4 || ce.Status != 401 {
		t.Fatalf("shutdown: %v, want a CredentialsError with 4 live orders", err)
	}
	want := "the exchange refused the credentials (HTTP 401: unauthorized: invalid api key): 4 orders may still be live"
	if err.Error() != want {
		t.Errorf("shutdown: %q, want %q", err, want)
	}
	if n := r.v.count("cancel") - cancelsBefore; n != 1 {
		t.Errorf("shutdown sent %d cancels with refused credentials, want 1", n)
	}
	if got := r.log.lines(t, "authenticated requests not sent"); len(got) != 1 || got[0]["not_sent"] != float64(held) {
		t.Errorf("not-sent summary %v, want one line counting %d", got, held)
	}
	sum := r.log.lines(t, "the exchange refused the credentials again")
	if len(sum) != 1 || sum[0]["total"] != float64(r.v.count("order")+r.v.count("cancel")+r.v.count("place")) {
		t.Fatalf("summary lines %v, want one whose total counts every refused request", sum)
	}
}

// Cancels that keep failing (a 500) back off per order and Shutdown's
// rounds come further apart: over a 10 s shutdown a few dozen requests,
// where before every order was cancelled and read every 200 ms (about 200
// requests for these 4 orders). The failures are one log line and a
// summary.
func TestLoopShutdownFailingCancelsBackOff(t *testing.T) {
	r := newAuthRig(t)
	r.v.set(&exchange.APIError{Area: exchange.AreaCLOB, Endpoint: "DELETE /order", Status: 500, Message: "internal_error: unexpected database failure"})
	r.clock.deadline = r.clock.Now().Add(10 * time.Second)
	err := r.l.Shutdown(context.Background())
	if err == nil || !strings.Contains(err.Error(), "4 orders may still be live") || errors.Is(err, ErrCredentialsRefused) {
		t.Fatalf("shutdown: %v", err)
	}
	cancels, reads := r.v.count("cancel"), r.v.count("order")
	t.Logf("%d cancels, %d reads", cancels, reads)
	if cancels > 4*6 || reads > 4*9 {
		t.Errorf("%d cancels and %d reads of 4 orders in 10 s, want at most 6 and 9 each", cancels, reads)
	}
	if cancels < 4*3 {
		t.Errorf("%d cancels of 4 orders in 10 s: the orders must still be retried", cancels)
	}
	if got := r.log.lines(t, "cancel failed"); len(got) != 1 {
		t.Errorf("%d cancel-failed lines, want 1", len(got))
	}
	sum := r.log.lines(t, "cancels keep failing")
	if len(sum) != 1 || sum[0]["total"] != float64(cancels) {
		t.Errorf("summary %v, want one line counting %d cancels", sum, cancels)
	}
	if tripped, trip := r.kill.Tripped(); tripped && trip.Reason == risk.TripAuth {
		t.Error("a 500 tripped the switch for auth")
	}
}

// CheckCredentials: 404 for the id that cannot exist means accepted; a 401
// or 403 is a CredentialsError quoting the exchange; anything else comes
// back as it was.
func TestCheckCredentials(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		refused int // status of the CredentialsError; 0: none
		ok      bool
	}{
		{"accepted", exchange.ErrNotFound, 0, true},
		{"401", errRevoked, 401, false},
		{"403", &exchange.APIError{Status: 403, Message: "unauthorized: ip_not_allowlisted"}, 403, false},
		{"500", &exchange.APIError{Status: 500, Message: "internal_error: x"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newFailVenue()
			v.set(tt.err)
			err := CheckCredentials(context.Background(), v)
			var ce *CredentialsError
			switch {
			case tt.ok:
				if err != nil {
					t.Fatalf("%v, want nil", err)
				}
			case tt.refused != 0:
				if !errors.As(err, &ce) || ce.Status != tt.refused || ce.Live >= 0 || !strings.Contains(err.Error(), "unauthorized") {
					t.Fatalf("%v, want a CredentialsError %d quoting the exchange", err, tt.refused)
				}
			default:
				if err == nil || errors.As(err, &ce) || !errors.Is(err, tt.err) {
					t.Fatalf("%v, want %v wrapped", err, tt.err)
				}
			}
			if v.count("order") != 1 {
				t.Fatalf("%d requests, want 1", v.count("order"))
			}
		})
	}
}

// cancelRetryAfter doubles from the base to the cap.
func TestCancelRetryAfter(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		if got := cancelRetryAfter(i + 1); got != w {
			t.Errorf("after %d failures: %s, want %s", i+1, got, w)
		}
	}
	if got := cancelRetryAfter(1000); got != cancelRetryMax {
		t.Errorf("after 1000 failures: %s", got)
	}
}

// Credentials accepted again (a key restored, a clock fixed) let every
// call out again at the next call the hold lets through; the kill switch
// stays tripped until an operator resets it, and then quoting resumes.
func TestLoopCredentialsAcceptedAgain(t *testing.T) {
	r := newAuthRig(t)
	r.v.set(errRevoked)
	for range 3 {
		r.cycle(t)
	}
	if r.l.auth.refusal() == nil {
		t.Fatal("no refusal noted")
	}
	r.v.set(nil)
	for range 5 {
		r.cycle(t)
	}
	if ce := r.l.auth.refusal(); ce != nil {
		t.Fatalf("still refused after the exchange accepted a call: %v", ce)
	}
	if got := r.log.lines(t, "the exchange accepts the credentials again"); len(got) != 1 {
		t.Fatalf("%d lines saying the credentials are accepted again, want 1", len(got))
	}
	if tripped, trip := r.kill.Tripped(); !tripped || trip.Reason != risk.TripAuth {
		t.Fatalf("kill switch %v %+v: want still tripped for auth", tripped, trip)
	}
	r.kill.Reset("op")
	placed := r.v.placed
	for range 2 {
		r.cycle(t)
	}
	if r.v.placed == placed {
		t.Fatal("nothing placed after the reset")
	}
}

// A placement held back while the credentials are refused (an operator
// reset the switch too early) never left: its intents are marked failed,
// not left "sent" to be reconciled by hash, and it counts as no order
// error.
func TestLoopHeldPlacementNeverLeft(t *testing.T) {
	r := newAuthRig(t)
	if err := r.l.Shutdown(context.Background()); err != nil { // nothing live: the next cycle places
		t.Fatal(err)
	}
	r.v.set(errRevoked)
	if _, err := r.l.venue.Order(context.Background(), "0xhash0001"); !isAuthRefusal(err) {
		t.Fatalf("read: %v", err)
	}
	if tripped, trip := r.kill.Tripped(); !tripped || trip.Reason != risk.TripAuth {
		t.Fatalf("kill switch %v %+v", tripped, trip)
	}
	failedBefore := r.j.count(JFailed)
	places := r.v.count("place")
	r.kill.Reset("op")
	// Within the hold: nothing authenticated is sent.
	_ = r.l.Cycle(context.Background())
	if n := r.v.count("place"); n != places {
		t.Fatalf("%d placements reached the exchange during the hold", n-places)
	}
	if r.j.count(JFailed) == failedBefore {
		t.Fatal("no intent marked failed: the held placement was taken as sent (or nothing was planned)")
	}
	if n := r.j.count(JSent) + r.j.count(JIntent); n != 0 {
		t.Fatalf("%d orders left sent or intent after a placement that never left", n)
	}
}

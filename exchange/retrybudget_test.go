package exchange

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// An interactive command's client (WithRetryBudget) gives up on a 429 whose
// Retry-After is past its budget instead of waiting out three capped
// minutes, and its error says how long it waited and what the exchange
// asked for.
func TestRetryBudgetGivesUpOnHugeRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name        string
		retryAfter  string
		hits        int
		waited      time.Duration
		wantInError []string
	}{
		// one hour asked (capped at a minute): no point waiting at all
		{"an hour", "3600", 1, 0, []string{"HTTP 429", "gave up after 1 attempt and 0s of waiting",
			"the exchange asked to wait 1h0m0s", "retry budget of 10s"}},
		// 4 s asked: two waits of 4 s fit, a third (12 s in all) would not
		{"four seconds", "4", 3, 8 * time.Second, []string{"gave up after 3 attempts and 8s of waiting",
			"the exchange asked to wait 4s", "retry budget of 10s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t, WithRetryBudget(10*time.Second),
				WithRetry(RetryPolicy{MaxAttempts: 10, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Jitter: noJitter}))
			e.autoAdvance()
			f := &flaky{statuses: []int{429, 429, 429, 429, 429, 429}, ok: `{"data":[]}`, now: e.clk.Now, retryAfter: tc.retryAfter}
			e.handle("GET /clob/markets", f.serve)
			start := e.clk.Now()
			_, err := e.c.Markets(e.ctx, "")
			var be *RetryBudgetError
			if !errors.As(err, &be) {
				t.Fatalf("error %v (%T), want a *RetryBudgetError; requests at %v", err, err, f.times)
			}
			if !errors.Is(err, ErrRateLimited) {
				t.Errorf("error %v does not match ErrRateLimited", err)
			}
			if f.count() != tc.hits || be.Waited != tc.waited || be.Attempts != tc.hits {
				t.Errorf("%d requests, waited %s in %d attempts; want %d and %s", f.count(), be.Waited, be.Attempts, tc.hits, tc.waited)
			}
			if took := e.clk.Now().Sub(start); took > 10*time.Second {
				t.Errorf("the call took %s on the client's clock, over its budget of 10s", took)
			}
			for _, w := range tc.wantInError {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// Without a budget the daemon's client keeps the old behaviour: it waits
// the capped Retry-After between attempts and succeeds once the exchange
// answers.
func TestNoRetryBudgetWaitsCappedRetryAfter(t *testing.T) {
	e := setup(t)
	e.autoAdvance()
	f := &flaky{statuses: []int{429, 429}, ok: `{"data":[]}`, now: e.clk.Now, retryAfter: "3600"}
	e.handle("GET /clob/markets", f.serve)
	start := e.clk.Now()
	if _, err := e.c.Markets(e.ctx, ""); err != nil {
		t.Fatal(err)
	}
	if took := e.clk.Now().Sub(start); took < 2*DefaultMaxRetryAfter {
		t.Errorf("took %s, want two capped waits of %s", took, DefaultMaxRetryAfter)
	}
}

// A call that would wait in the client's own limiter (its endpoint blocked
// by an earlier 429) past the budget fails at once too.
func TestRetryBudgetLimiterWait(t *testing.T) {
	e := setup(t, WithRetryBudget(10*time.Second))
	e.autoAdvance()
	f := &flaky{statuses: []int{429}, ok: `{"data":[]}`, now: e.clk.Now, retryAfter: "3600"}
	e.handle("GET /clob/markets", f.serve)
	if _, err := e.c.Markets(e.ctx, ""); err == nil {
		t.Fatal("first call succeeded")
	}
	start := e.clk.Now()
	_, err := e.c.Markets(e.ctx, "")
	var we *WaitError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "retry budget of 10s") {
		t.Fatalf("second call: %v, want a *WaitError naming the budget", err)
	}
	if f.count() != 1 || e.clk.Now().Sub(start) > 0 {
		t.Errorf("%d requests, waited %s; want 1 and none", f.count(), e.clk.Now().Sub(start))
	}
}

func TestWithRetryBudgetRejectsNegative(t *testing.T) {
	if _, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1/clob"}, WithRetryBudget(-time.Second)); err == nil {
		t.Error("a negative budget was accepted")
	}
}

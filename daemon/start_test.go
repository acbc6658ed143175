package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/strategy/loop"
)

var st0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// startRig is a startRetry on a fake clock that advances by itself, with
// the status lines, the timeout extensions and the log kept.
type startRig struct {
	r        *startRetry
	clk      *clocktest.Clock
	statuses []string
	extends  []time.Duration
	log      bytes.Buffer
}

func newStartRig(t *testing.T, giveUp time.Duration) *startRig {
	t.Helper()
	s := &startRig{clk: clocktest.New(st0)}
	s.r = &startRetry{base: time.Second, max: 8 * time.Second, giveUp: giveUp, clock: s.clk, log: zerolog.New(&s.log),
		status: func(m string) { s.statuses = append(s.statuses, m) },
		extend: func(d time.Duration) { s.extends = append(s.extends, d) },
		jitter: func(d time.Duration) time.Duration { return d }}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for s.clk.BlockUntil(ctx, 1) == nil {
			s.clk.AdvanceToNext()
		}
	}()
	return s
}

var errUnreachable = fmt.Errorf("list markets: %w", &exchange.APIError{Area: "clob", Endpoint: "GET /markets", Status: 503, Message: "maintenance"})

// TestStartRetryWaitsForTheExchange: failures retrying can fix are tried
// again after 1, 2, 4, 8, 8 s (the backoff doubles up to its cap); each
// pause tells systemd why and when the next try is and extends the start
// timeout; the attempt that succeeds ends the wait.
func TestStartRetryWaitsForTheExchange(t *testing.T) {
	s := newStartRig(t, 0)
	var at []time.Duration
	err := s.r.do(context.Background(), "market selection", func(context.Context) error {
		at = append(at, s.clk.Now().Sub(st0))
		if len(at) <= 5 {
			return errUnreachable
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 1 * time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second, 23 * time.Second}
	if fmt.Sprint(at) != fmt.Sprint(want) {
		t.Errorf("attempts at %v, want %v", at, want)
	}
	if len(s.statuses) != 5 || !strings.Contains(s.statuses[0], "maintenance") ||
		!strings.Contains(s.statuses[0], "next try in 1s, at 12:00:01 UTC") || !strings.Contains(s.statuses[4], "next try in 8s, at 12:00:23 UTC") {
		t.Errorf("status lines %q", s.statuses)
	}
	if len(s.extends) != 5 || s.extends[0] != time.Second+startMargin {
		t.Errorf("timeout extensions %v", s.extends)
	}
	if n := strings.Count(s.log.String(), "cannot be reached"); n != 5 || !strings.Contains(s.log.String(), "the exchange answered") {
		t.Errorf("%d retry lines; log:\n%s", n, s.log.String())
	}
}

// TestStartRetryStopsOnPermanentErrors: refused credentials, a 4xx and a
// selection the list cannot satisfy end the wait at once.
func TestStartRetryStopsOnPermanentErrors(t *testing.T) {
	for _, perm := range []error{
		&exchange.APIError{Area: "clob", Endpoint: "GET /markets", Status: 401},
		&exchange.APIError{Area: "clob", Endpoint: "GET /markets", Status: 403, Message: exchange.MsgIPNotAllowlisted},
		fmt.Errorf("books of 0xabc: %w", &exchange.APIError{Area: "clob", Endpoint: "POST /books", Status: 400, Message: "invalid body"}),
		assemble.Permanent(errors.New("markets.condition_ids: 0xabc is not listed by the exchange")),
	} {
		s := newStartRig(t, 0)
		n := 0
		err := s.r.do(context.Background(), "market selection", func(context.Context) error { n++; return perm })
		if !errors.Is(err, perm) || n != 1 || len(s.statuses) != 0 {
			t.Errorf("%v: err %v after %d attempts, %d status lines; want it at once", perm, err, n, len(s.statuses))
		}
	}
	for _, transient := range []error{
		errUnreachable,
		&exchange.APIError{Status: 429}, &exchange.APIError{Status: 408}, &exchange.DecodeError{Status: 200, Err: errors.New("x")},
		&exchange.BodyTooLargeError{Status: 200}, errors.New("dial tcp 127.0.0.1:1: connect: connection refused"),
	} {
		if !startRetryable(transient) {
			t.Errorf("%v: not retried", transient)
		}
	}
}

// TestStartRetryEndsWithContextOrGiveUp: a context ended during the pause
// ends the wait with its error; give_up_after ends it with errGaveUp
// naming the last failure.
func TestStartRetryEndsWithContextOrGiveUp(t *testing.T) {
	s := newStartRig(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := s.r.do(ctx, "market selection", func(context.Context) error {
		n++
		if n == 3 {
			cancel() // SIGTERM during the third attempt
		}
		return errUnreachable
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("err %v after %d attempts, want context.Canceled after 3", err, n)
	}

	s = newStartRig(t, 10*time.Second)
	n = 0
	err = s.r.do(context.Background(), "market selection", func(context.Context) error { n++; return errUnreachable })
	if !errors.Is(err, errGaveUp) || !strings.Contains(err.Error(), "maintenance") || n != 4 {
		t.Errorf("err %v after %d attempts, want errGaveUp after 4 (at 0, 1, 3 and 7 s: the next, at 15 s, passes 10 s)", err, n)
	}
}

// The hint after refused credentials names the account's settings; after
// a 403 it names the exchange's IP allowlist first.
func TestCredentialsHint(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&loop.CredentialsError{Status: 401, Live: -1}, "check account.api_key, "},
		{&loop.CredentialsError{Status: 403, Live: -1}, "check that the exchange allows this host's IP address (its allowlist), then account.api_key, "},
		{fmt.Errorf("shutdown: %w", &loop.CredentialsError{Status: 403, Live: 3}), "check that the exchange allows this host's IP address"},
	} {
		if got := assemble.CredentialsHint(tt.err); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%v: %q, want it to start %q", tt.err, got, tt.want)
		}
	}
}

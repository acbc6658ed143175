package daemon

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// startRetry is how `mmbot run` waits for an exchange it cannot reach at
// start, before it is ready ([exchange.start_retry]): an attempt that fails
// with an error retrying can fix is tried again after a backoff from base
// doubling up to max, with jitter; systemd hears why and when the next try
// is (STATUS=) and that the start goes on (EXTEND_TIMEOUT_USEC=).
type startRetry struct {
	base, max time.Duration
	giveUp    time.Duration // 0: until ctx ends
	clock     exchange.Clock
	log       zerolog.Logger
	// status and extend reach systemd; either may be nil.
	status func(string)
	extend func(time.Duration)
	// jitter returns a duration in [d/2, d]; nil draws it at random.
	jitter func(d time.Duration) time.Duration
}

// startMargin is how long systemd is asked to wait after each pause: the
// next attempt and what follows it until READY (the unit's TimeoutStartSec).
const startMargin = 2 * time.Minute

// errGaveUp is returned when exchange.start_retry.give_up_after has passed.
var errGaveUp = errors.New("gave up waiting for the exchange (exchange.start_retry.give_up_after)")

// do runs attempt until it succeeds, fails with an error retrying cannot
// fix (returned as it is), ctx ends (ctx's error, wrapping the last
// failure) or give_up_after has passed (errGaveUp, wrapping the last
// failure). what names the attempt in logs and the status.
func (r *startRetry) do(ctx context.Context, what string, attempt func(context.Context) error) error {
	start := r.clock.Now()
	delay := r.base
	for n := 1; ; n++ {
		err := attempt(ctx)
		if err == nil {
			if n > 1 {
				r.log.Info().Int("attempts", n).Str("waited", r.clock.Now().Sub(start).Round(time.Millisecond).String()).
					Msgf("%s: the exchange answered", what)
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w (last failure: %v)", what, ctx.Err(), err)
		}
		if !startRetryable(err) {
			return err
		}
		wait := r.draw(delay)
		now := r.clock.Now()
		if r.giveUp > 0 && now.Add(wait).Sub(start) > r.giveUp {
			return fmt.Errorf("%s: %w after %s and %d attempts: %w", what, errGaveUp, now.Sub(start).Round(time.Second), n, err)
		}
		next := now.Add(wait)
		r.log.Warn().Err(err).Int("attempt", n).Str("next_in", wait.Round(time.Millisecond).String()).
			Time("next_at", next).Msgf("%s: the exchange cannot be reached; trying again (not ready, nothing quoted)", what)
		if r.extend != nil {
			r.extend(wait + startMargin)
		}
		if r.status != nil {
			r.status(fmt.Sprintf("waiting for the exchange (%s, attempt %d failed: %s); next try in %s, at %s",
				what, n, clipErr(err, 160), wait.Round(time.Second), next.UTC().Format("15:04:05 UTC")))
		}
		if serr := r.clock.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%s: %w (last failure: %v)", what, serr, err)
		}
		delay = min(delay*2, r.max)
	}
}

func (r *startRetry) draw(d time.Duration) time.Duration {
	if r.jitter != nil {
		return min(max(r.jitter(d), d/2), d)
	}
	if d <= 1 {
		return d
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// startRetryable reports whether a start-up failure may go away by itself:
// everything but refused credentials (401, 403), a 4xx answer other than 408
// and 429, a request the client refused to build (bad parameter, area or
// authenticator missing: configuration), and what is marked permanent.
func startRetryable(err error) bool {
	var pe *assemble.PermanentError
	if errors.As(err, &pe) {
		return false
	}
	for _, target := range []error{exchange.ErrUnauthorized, exchange.ErrIPNotAllowlisted, exchange.ErrInvalidParam,
		exchange.ErrAreaNotConfigured, exchange.ErrNoAuthenticator} {
		if errors.Is(err, target) {
			return false
		}
	}
	var ae *exchange.APIError
	if errors.As(err, &ae) && ae.Status >= 400 && ae.Status <= 499 &&
		ae.Status != http.StatusRequestTimeout && ae.Status != http.StatusTooManyRequests {
		return false
	}
	return true
}

// clipErr is err's message cut to n bytes, for a status line.
func clipErr(err error, n int) string {
	s := err.Error()
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// checkCredentials proves the credentials before the daemon is ready: one
// authenticated request that changes nothing (loop.CheckCredentials: a
// read of an order that cannot exist). An exchange that cannot be reached
// is waited for as at market selection; a refusal (401, 403) ends the
// start with one line that says so and quotes the exchange.
func (d *Daemon) checkCredentials(ctx context.Context) error {
	err := d.startRetry().do(ctx, "credentials check", func(ctx context.Context) error {
		return loop.CheckCredentials(ctx, d.client)
	})
	var ce *loop.CredentialsError
	if errors.As(err, &ce) {
		return assemble.Permanent(fmt.Errorf("%w; nothing was quoted: %s", err, assemble.CredentialsHint(err)))
	}
	return err
}

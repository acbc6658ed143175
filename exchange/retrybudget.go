package exchange

import (
	"fmt"
	"strings"
	"time"
)

// WithRetryBudget bounds the total time one call may spend waiting: the
// sleeps between retries and the waits in the client's own rate limiter.
// When the next wait would take the call past d it stops at once with a
// *RetryBudgetError (or, for a limiter wait, a *WaitError) instead of
// sleeping. Interactive commands use a few seconds, so that an exchange
// asking for a minute-long Retry-After is reported instead of waited out;
// the daemon uses none (the default, 0): it waits as the exchange asks, up
// to WithMaxRetryAfter.
func WithRetryBudget(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return fmt.Errorf("exchange: retry budget %s must not be negative", d)
		}
		c.retryBudget = d
		return nil
	}
}

// RetryBudgetError is returned when a read's next retry would wait past the
// client's retry budget (WithRetryBudget). It wraps the last attempt's
// error, so errors.Is(err, ErrRateLimited) still holds after a 429.
type RetryBudgetError struct {
	Endpoint string
	Attempts int           // attempts made
	Waited   time.Duration // time already spent waiting
	Budget   time.Duration
	Next     time.Duration // the wait the next attempt needed
	// Asked is the last answer's Retry-After before the client's cap
	// (zero when it sent none).
	Asked time.Duration
	Err   error // the last attempt's error
}

func (e *RetryBudgetError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	attempts := "attempts"
	if e.Attempts == 1 {
		attempts = "attempt"
	}
	fmt.Fprintf(&b, "; gave up after %d %s and %s of waiting: ", e.Attempts, attempts, e.Waited.Round(time.Millisecond))
	if e.Asked > 0 {
		fmt.Fprintf(&b, "the exchange asked to wait %s, ", e.Asked)
	} else {
		fmt.Fprintf(&b, "the next retry needed %s, ", e.Next.Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "past this command's retry budget of %s (try again later)", e.Budget)
	return b.String()
}

func (e *RetryBudgetError) Unwrap() error { return e.Err }

// budgetLeft is the wait a call that has waited so far may still spend:
// 0 means no budget (wait as long as needed), a positive value is the most.
func (c *Client) budgetLeft(waited time.Duration) time.Duration {
	if c.retryBudget <= 0 {
		return 0
	}
	return max(c.retryBudget-waited, time.Nanosecond)
}

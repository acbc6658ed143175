package exchange

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy is how idempotent reads (every GET, POST /books and
// POST /spreads) are retried after a 5xx, a 429 or a network error. POST
// /orders and DELETE /order are never retried: a lost answer is resolved by
// reading the order back, not by sending it again.
//
// The delay before retry k (k = 1, 2, ...) is a uniformly random duration in
// [0, min(MaxDelay, BaseDelay·2^(k−1))] ("full jitter"), raised to the
// server's Retry-After when that is longer.
type RetryPolicy struct {
	MaxAttempts int           // attempts in all, including the first; 1 disables retries
	BaseDelay   time.Duration // first backoff ceiling
	MaxDelay    time.Duration // largest backoff ceiling
	// Jitter returns a duration in [0, ceiling]; nil uses math/rand/v2.
	// Tests inject a deterministic one.
	Jitter func(ceiling time.Duration) time.Duration
}

// DefaultRetryPolicy returns 4 attempts, 100 ms base and 5 s max delay.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Second}
}

// Validate checks the policy.
func (p RetryPolicy) Validate() error {
	switch {
	case p.MaxAttempts < 1:
		return fmt.Errorf("exchange: retry max attempts %d must be at least 1", p.MaxAttempts)
	case p.BaseDelay < 0 || p.MaxDelay < 0:
		return errors.New("exchange: retry delays must not be negative")
	case p.MaxDelay < p.BaseDelay:
		return fmt.Errorf("exchange: retry max delay %s is below the base delay %s", p.MaxDelay, p.BaseDelay)
	}
	return nil
}

// backoff returns the delay before retry k (k ≥ 1).
func (p RetryPolicy) backoff(k int) time.Duration {
	ceiling := p.BaseDelay
	for i := 1; i < k && ceiling < p.MaxDelay; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, p.MaxDelay)
	if ceiling <= 0 {
		return 0
	}
	var d time.Duration
	if p.Jitter != nil {
		d = p.Jitter(ceiling)
	} else {
		d = time.Duration(rand.Int64N(int64(ceiling) + 1))
	}
	return min(max(d, 0), ceiling)
}

// netError marks a failure to get a complete answer (connection refused or
// reset, timeout, truncated body).
type netError struct {
	endpoint string
	err      error
}

func (e *netError) Error() string { return fmt.Sprintf("exchange: %s: %v", e.endpoint, e.err) }
func (e *netError) Unwrap() error { return e.err }

// retryable reports whether an idempotent read that failed with err may be
// sent again (the caller checks its own context first).
func retryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status == 429 || ae.Status == 425 || (ae.Status >= 500 && ae.Status <= 599)
	}
	var ne *netError
	return errors.As(err, &ne)
}

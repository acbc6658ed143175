package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// call is one request: the endpoint, its escaped path relative to the
// area's base address, the query and the exact body bytes (nil for none).
type call struct {
	ep    endpointID
	path  string
	query url.Values
	body  []byte
	items int // items of the body, for per-item rate-limit costs
	// answer is how many items the answer may hold (tokens of POST /books,
	// orders of POST /orders, a list's limit): its body bound grows with it.
	answer int
}

// authHeaderNames are the spellings the spec gives the SVC_ headers; the
// client sends them exactly so, whatever case the Authenticator used.
var authHeaderNames = [...]string{HeaderAddress, HeaderAPIKey, HeaderPassphrase, HeaderTimestamp, HeaderSignature}

// doJSON sends cl and decodes a 2xx body into out.
func (c *Client) doJSON(ctx context.Context, cl call, out any) error {
	status, body, err := c.do(ctx, cl)
	if err != nil {
		return err
	}
	return decodeBody(cl.ep, status, body, out)
}

// decodeBody decodes a 2xx body; a failure is a *DecodeError quoting the
// start of the body.
func decodeBody(ep endpointID, status int, body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		s := &endpointSpecs[ep]
		return &DecodeError{Area: s.area, Endpoint: s.method + " " + s.pattern, Status: status, Body: clip(body, bodyQuote), Err: err}
	}
	return nil
}

// do sends cl through the limiter, with retries for idempotent endpoints,
// and returns the status and body of a 2xx answer.
func (c *Client) do(ctx context.Context, cl call) (int, []byte, error) {
	s := &endpointSpecs[cl.ep]
	name := s.Name()
	base, ok := c.bases[s.area]
	if !ok {
		return 0, nil, fmt.Errorf("%w: %s (%s)", ErrAreaNotConfigured, s.area, name)
	}
	if s.auth && c.auth == nil {
		return 0, nil, fmt.Errorf("%s: %w", name, ErrNoAuthenticator)
	}
	target := base + cl.path
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	costs := s.costs(cl.items)
	limit := min(s.answer.bytes(cl.answer), c.maxBody)
	var waited time.Duration // in the limiter and between retries
	for attempt := 1; ; attempt++ {
		t0 := c.clock.Now()
		if err := c.lim.waitMax(ctx, c.clock, name, costs, c.budgetLeft(waited), c.retryBudget); err != nil {
			return 0, nil, err
		}
		waited += c.clock.Now().Sub(t0)
		status, hdr, body, err := c.roundTrip(ctx, s, target, cl, limit)
		if err == nil && status >= 200 && status <= 299 {
			return status, body, nil
		}
		var apiErr *APIError
		if err == nil {
			apiErr = newAPIError(s.area, s.method+" "+s.pattern, status, hdr, body, c.clock.Now(), c.maxRetryAfter)
			if status == http.StatusNotFound {
				apiErr.Hint = baseHint(s.area, s.pattern, base)
			}
			err = apiErr
			if status == http.StatusTooManyRequests {
				wait := apiErr.RetryAfter
				if wait <= 0 {
					wait = DefaultRetryAfter
				}
				c.lim.block(costs, c.clock.Now().Add(wait))
				if c.obs.RateLimited != nil {
					c.obs.RateLimited(name, apiErr.RetryAfterAsked)
				}
			}
			if apiErr.RetryAfterAsked > apiErr.RetryAfter && c.obs.RetryAfterCapped != nil {
				c.obs.RetryAfterCapped(name, apiErr.RetryAfterAsked, apiErr.RetryAfter)
			}
		}
		if !s.idempotent || attempt >= c.retry.MaxAttempts || ctx.Err() != nil || !retryable(err) {
			return 0, nil, err
		}
		delay := c.retry.backoff(attempt)
		if apiErr != nil && apiErr.RetryAfter > delay {
			delay = apiErr.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && c.clock.Now().Add(delay).After(dl) {
			return 0, nil, err
		}
		if c.retryBudget > 0 && waited+delay > c.retryBudget {
			be := &RetryBudgetError{Endpoint: name, Attempts: attempt, Waited: waited, Budget: c.retryBudget, Next: delay, Err: err}
			if apiErr != nil {
				be.Asked = apiErr.RetryAfterAsked
			}
			return 0, nil, be
		}
		if c.obs.Retry != nil {
			c.obs.Retry(name, attempt, delay, err)
		}
		if serr := c.clock.Sleep(ctx, delay); serr != nil {
			return 0, nil, fmt.Errorf("%s: %w (while waiting to retry after: %v)", name, serr, err)
		}
		waited += delay
	}
}

// roundTrip makes one HTTP attempt. A failure to send or to read the whole
// body is a *netError; a 2xx body over limit is a *BodyTooLargeError (read no
// further than limit, decoded not at all); the body of another status is
// cut at errorBodyBytes; a complete answer of any status is returned as is.
func (c *Client) roundTrip(ctx context.Context, s *endpointSpec, target string, cl call, limit int64) (int, http.Header, []byte, error) {
	name := s.Name()
	var rd io.Reader
	if cl.body != nil {
		rd = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, endpointKey{}, redirectInfo{name: name, auth: s.auth}), s.method, target, rd)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("exchange: %s: building request: %w", name, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.ua)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.auth {
		h, err := c.auth.AuthHeaders(s.method, cl.path, cl.body)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("exchange: %s: authenticating: %w", name, err)
		}
		setAuthHeaders(req.Header, h)
	}
	start := c.clock.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.observeDone(name, 0, start)
		if ctx.Err() != nil {
			return 0, nil, nil, fmt.Errorf("exchange: %s: %w", name, ctx.Err())
		}
		var re *RedirectError
		if errors.As(err, &re) {
			if c.obs.RedirectRefused != nil {
				c.obs.RedirectRefused(re)
			}
			return 0, nil, nil, re // not a *netError: never retried
		}
		return 0, nil, nil, &netError{endpoint: name, err: err}
	}
	defer resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if !ok {
		limit = min(limit, errorBodyBytes)
	}
	tooLarge := func(declared int64) error {
		c.observeDone(name, resp.StatusCode, start)
		return &BodyTooLargeError{Area: s.area, Endpoint: s.method + " " + s.pattern, Status: resp.StatusCode, Limit: limit,
			Items: cl.answer, ContentLength: declared}
	}
	if ok && resp.ContentLength > limit {
		return 0, nil, nil, tooLarge(resp.ContentLength) // refused unread
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if ok && int64(len(body)) > limit {
		return 0, nil, nil, tooLarge(-1)
	}
	c.observeDone(name, resp.StatusCode, start)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, fmt.Errorf("exchange: %s: reading body: %w", name, ctx.Err())
		}
		return 0, nil, nil, &netError{endpoint: name, err: fmt.Errorf("reading body after %d bytes (HTTP %d, starts %q): %w", len(body), resp.StatusCode, clip(body, bodyQuote), err)}
	}
	if int64(len(body)) > limit { // an error body: its start is enough
		body = body[:limit]
	}
	return resp.StatusCode, resp.Header, body, nil
}

func (c *Client) observeDone(name string, status int, start time.Time) {
	if c.obs.RequestDone != nil {
		c.obs.RequestDone(name, status, c.clock.Now().Sub(start))
	}
}

// setAuthHeaders copies h into dst, writing the five SVC_ headers with the
// spec's exact spelling.
func setAuthHeaders(dst, h http.Header) {
	for k, vs := range h {
		key := k
		for _, n := range authHeaderNames {
			if strings.EqualFold(k, n) {
				key = n
				break
			}
		}
		dst[key] = append([]string(nil), vs...)
	}
}

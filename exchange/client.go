package exchange

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Endpoints are the base addresses of the three API areas, e.g.
// "https://data.example" or "http://127.0.0.1:8080/clob". An empty one
// means the area is not used; calling it fails with ErrAreaNotConfigured.
type Endpoints struct {
	Data    string
	Catalog string
	CLOB    string
}

// ErrAreaNotConfigured is returned by a call to an area whose base address
// was left empty.
var ErrAreaNotConfigured = errors.New("exchange: API area has no base address")

// Default settings of NewClient.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxBatch  = 15 // orders per POST /orders (DESIGN.md §4)
	DefaultUserAgent = "mmbot"
	// DefaultMaxBody is the ceiling over every answer body the client
	// reads; each endpoint has its own, smaller bound (bounds.go).
	DefaultMaxBody = 64 << 20
	// DefaultRetryAfter is how long a 429 without a usable Retry-After
	// blocks the endpoint's buckets.
	DefaultRetryAfter = time.Second
	// DefaultMaxRetryAfter caps the wait a Retry-After header can impose:
	// a 429 blocks the endpoint's buckets, and a retried read sleeps, at
	// most this long, whatever the header says (WithMaxRetryAfter).
	DefaultMaxRetryAfter = time.Minute
)

// Client calls the data, catalog and order-book APIs. It keeps under the
// rate limits by itself, retries idempotent reads, and signs the three
// authenticated calls with its Authenticator. It is safe for concurrent use.
type Client struct {
	bases    map[Area]string // base address without trailing slash
	hc       *http.Client
	auth     Authenticator
	clock    Clock
	limits   Limits
	lim      *limiter
	spent    *Spent // WithSpent: what the previous process's buckets spent
	retry    RetryPolicy
	obs      Observer
	ua       string
	maxBatch int
	maxBody  int64
	// maxRetryAfter caps the wait of a Retry-After header.
	maxRetryAfter time.Duration
	// retryBudget bounds one call's total waiting (WithRetryBudget); 0:
	// none.
	retryBudget time.Duration
}

// Observer receives the client's events; the daemon turns them into
// metrics. Every field is optional. endpoint is e.g. "clob POST /orders".
// The callbacks run on the calling goroutine and must not block.
type Observer struct {
	// RequestDone is called after each HTTP attempt; status is 0 when no
	// response arrived.
	RequestDone func(endpoint string, status int, d time.Duration)
	// RateLimited is called for each 429, with the wait it asked for
	// (before the cap of WithMaxRetryAfter; zero when it named none).
	RateLimited func(endpoint string, retryAfter time.Duration)
	// RetryAfterCapped is called for each answer (429 or 5xx) whose
	// Retry-After asked for more than the client's maximum: asked is what
	// the header said, used the wait the client applies instead.
	RetryAfterCapped func(endpoint string, asked, used time.Duration)
	// Retry is called before a read is retried.
	Retry func(endpoint string, attempt int, delay time.Duration, err error)
	// RedirectRefused is called for each redirect the client refused to
	// follow (see RedirectError).
	RedirectRefused func(err *RedirectError)
}

// Option configures a Client.
type Option func(*Client) error

// WithHTTPClient sets the HTTP client (default: one with a 30 s timeout).
// The client uses a copy of it whose redirect policy is its own: no
// redirect on an authenticated call, none to another host on a public read.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("exchange: WithHTTPClient(nil)")
		}
		c.hc = hc
		return nil
	}
}

// WithAuthenticator sets the signer of the authenticated calls.
func WithAuthenticator(a Authenticator) Option {
	return func(c *Client) error { c.auth = a; return nil }
}

// WithLimits replaces DefaultLimits.
func WithLimits(l Limits) Option {
	return func(c *Client) error {
		if err := l.Validate(); err != nil {
			return err
		}
		c.limits = l
		return nil
	}
}

// WithClock sets the clock of the limiter and the retries (default
// SystemClock).
func WithClock(clk Clock) Option {
	return func(c *Client) error {
		if clk == nil {
			return errors.New("exchange: WithClock(nil)")
		}
		c.clock = clk
		return nil
	}
}

// WithRetry replaces DefaultRetryPolicy.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) error {
		if err := p.Validate(); err != nil {
			return err
		}
		c.retry = p
		return nil
	}
}

// WithObserver sets the event callbacks.
func WithObserver(o Observer) Option {
	return func(c *Client) error { c.obs = o; return nil }
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) error {
		if strings.ContainsAny(ua, "\r\n") {
			return errors.New("exchange: user agent contains a line break")
		}
		c.ua = ua
		return nil
	}
}

// WithMaxBatch sets the most orders one POST /orders may carry (default 15).
func WithMaxBatch(n int) Option {
	return func(c *Client) error {
		if n < 1 {
			return fmt.Errorf("exchange: max batch %d must be at least 1", n)
		}
		c.maxBatch = n
		return nil
	}
}

// WithMaxRetryAfter caps the wait a Retry-After header can impose (default
// DefaultMaxRetryAfter): a 429 blocks its endpoint's buckets, and a retried
// read waits, at most d. One bad header cannot stop the bot for a day.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *Client) error {
		if d <= 0 {
			return fmt.Errorf("exchange: max Retry-After %s must be positive", d)
		}
		c.maxRetryAfter = d
		return nil
	}
}

// NewClient returns a client for the given base addresses. Each non-empty
// address must be an absolute http or https URL without query, fragment or
// user info; at least one must be given.
func NewClient(ep Endpoints, opts ...Option) (*Client, error) {
	c := &Client{
		bases:    make(map[Area]string, 3),
		hc:       &http.Client{Timeout: DefaultTimeout},
		clock:    SystemClock{},
		limits:   DefaultLimits(),
		retry:    DefaultRetryPolicy(),
		ua:       DefaultUserAgent,
		maxBatch: DefaultMaxBatch,
		maxBody:  DefaultMaxBody,

		maxRetryAfter: DefaultMaxRetryAfter,
	}
	for _, a := range []struct {
		area Area
		raw  string
	}{{AreaData, ep.Data}, {AreaCatalog, ep.Catalog}, {AreaCLOB, ep.CLOB}} {
		if a.raw == "" {
			continue
		}
		base, err := validateBase(a.raw)
		if err != nil {
			return nil, fmt.Errorf("exchange: %s base address: %w", a.area, err)
		}
		c.bases[a.area] = base
	}
	if len(c.bases) == 0 {
		return nil, errors.New("exchange: no base address given")
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	c.hc = withRedirectPolicy(c.hc)
	lim, err := newLimiter(c.limits, c.clock.Now(), c.spent)
	if err != nil {
		return nil, err
	}
	c.lim = lim
	return c, nil
}

func validateBase(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q: scheme must be http or https", raw)
	case u.Host == "":
		return "", fmt.Errorf("%q: no host", raw)
	case u.User != nil:
		return "", errors.New("user info is not allowed in a base address")
	case u.RawQuery != "" || u.ForceQuery:
		return "", fmt.Errorf("%q: a base address takes no query", raw)
	case u.Fragment != "":
		return "", fmt.Errorf("%q: a base address takes no fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Budget returns how many orders and cancels the POST /order and
// DELETE /order buckets can take at now (both windows each).
func (c *Client) Budget(now time.Time) Budget { return c.lim.budget(now) }

// ReadBudget returns how many requests the order-book API's general cap
// (clob_general) can take now: every order-book read counts there, and so
// does every POST /orders and DELETE /order. The loop bounds its order
// reads by a share of it.
func (c *Client) ReadBudget(now time.Time) int { return c.lim.reads(now) }

// Buckets returns a snapshot of every rate-limit bucket at now, in a fixed
// order, for metrics.
func (c *Client) Buckets(now time.Time) []BucketSnapshot { return c.lim.snapshot(now) }

// Limits returns the caps the client applies.
func (c *Client) Limits() Limits { return c.limits }

// MaxBatch returns the most orders one PlaceOrders call may carry.
func (c *Client) MaxBatch() int { return c.maxBatch }

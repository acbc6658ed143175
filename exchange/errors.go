package exchange

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors. An *APIError matches the ones its status, type and
// message map to (see APIError.Is), so callers write
// errors.Is(err, exchange.ErrNotFound).
var (
	ErrNotFound         = errors.New("exchange: not found")
	ErrUnauthorized     = errors.New("exchange: unauthorized")
	ErrIPNotAllowlisted = errors.New("exchange: ip not allowlisted")
	ErrRateLimited      = errors.New("exchange: rate limited")
	ErrBadRequest       = errors.New("exchange: bad request")
	ErrServer           = errors.New("exchange: server error")
	// ErrNotReady: the exchange is up but not serving (425 Too Early, or
	// 503 Service Unavailable, as the live one answers while its matching
	// engine restarts). It is a pause to wait out (Retry-After when sent),
	// not an error of the request: callers back off without counting it.
	// A 503 is also ErrServer.
	ErrNotReady = errors.New("exchange: not ready")

	// ErrInvalidParam is matched by every *ParamError: the client refused
	// a request before sending it.
	ErrInvalidParam = errors.New("exchange: invalid parameter")
	// ErrNoAuthenticator is returned by the authenticated calls when the
	// client has no Authenticator; nothing is sent.
	ErrNoAuthenticator = errors.New("exchange: authenticated call without an Authenticator (use WithAuthenticator)")
)

// Area names one of the three API areas.
type Area string

// The three API areas.
const (
	AreaData    Area = "data"
	AreaCatalog Area = "catalog"
	AreaCLOB    Area = "clob"
)

// Error messages and types the spec lists.
const (
	MsgIPNotAllowlisted = "unauthorized: ip_not_allowlisted"
	TypeNotFound        = "not found error"
	TypeBadRequest      = "bad request"
)

// ErrorBody is the error body of every area: {"error": "..."} for the data
// and order-book APIs, {"type": "...", "error": "..."} for the catalog API.
type ErrorBody struct {
	Type  string `json:"type,omitempty"`
	Error string `json:"error"`
}

// bodyQuote is how many bytes of a body an error message quotes.
const bodyQuote = 200

// APIError is a non-2xx answer of the exchange.
type APIError struct {
	Area     Area
	Endpoint string // e.g. "GET /markets/{condition_id}"
	Status   int
	Type     string // catalog error type, "" elsewhere
	Message  string // the body's "error" field, "" when the body was not JSON
	// Body is the start of the raw body (at most 4 KiB), kept for logs when
	// it was not the expected JSON.
	Body string
	// RetryAfter is the wait the client applies for the Retry-After header
	// of a 429 or 5xx: the parsed value, capped at the client's maximum
	// (WithMaxRetryAfter); zero if none was sent.
	RetryAfter time.Duration
	// RetryAfterAsked is the wait the header asked for, before the cap
	// (itself bounded at a year so that it cannot overflow).
	RetryAfterAsked time.Duration
	// Hint, when set, says what the answer probably means (a 404 on a path
	// the API always serves: the base address is wrong).
	Hint string
}

// Error describes the failure; when the body was not JSON it quotes the
// body's first bytes.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exchange: %s %s: HTTP %d", e.Area, e.Endpoint, e.Status)
	switch {
	case e.Type != "" || e.Message != "":
		if e.Type != "" {
			fmt.Fprintf(&b, " %s", e.Type)
			if e.Message != "" {
				b.WriteString(":")
			}
		}
		if e.Message != "" {
			fmt.Fprintf(&b, " %s", e.Message)
		}
	case e.Body != "":
		fmt.Fprintf(&b, ", unexpected body %q", clip([]byte(e.Body), bodyQuote))
	default:
		b.WriteString(", empty body")
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Is maps the error to the package's sentinels: 404 or type "not found
// error" → ErrNotFound; 401 → ErrUnauthorized; 403 or message
// "unauthorized: ip_not_allowlisted" → ErrIPNotAllowlisted; 429 →
// ErrRateLimited; 400, type "bad request" or a message starting with
// "unknown_field:" or "missing_field:" → ErrBadRequest; 5xx or a message
// starting with "internal_error:" → ErrServer; 425 or 503 → ErrNotReady.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound || e.Type == TypeNotFound
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrIPNotAllowlisted:
		return e.Status == http.StatusForbidden || e.Message == MsgIPNotAllowlisted
	case ErrRateLimited:
		return e.Status == http.StatusTooManyRequests
	case ErrBadRequest:
		return e.Status == http.StatusBadRequest || e.Type == TypeBadRequest ||
			strings.HasPrefix(e.Message, "unknown_field:") || strings.HasPrefix(e.Message, "missing_field:")
	case ErrServer:
		return e.Status >= 500 && e.Status <= 599 || strings.HasPrefix(e.Message, "internal_error:")
	case ErrNotReady:
		return e.Status == http.StatusTooEarly || e.Status == http.StatusServiceUnavailable
	}
	return false
}

// newAPIError builds the error for a non-2xx answer. It never fails: a body
// that is not the expected JSON is kept (clipped) in Body. A Retry-After
// longer than maxRetryAfter is cut to it (RetryAfterAsked keeps the ask).
func newAPIError(area Area, endpoint string, status int, h http.Header, body []byte, now time.Time, maxRetryAfter time.Duration) *APIError {
	e := &APIError{Area: area, Endpoint: endpoint, Status: status}
	var eb ErrorBody
	if err := json.Unmarshal(body, &eb); err == nil && (eb.Error != "" || eb.Type != "") {
		e.Type, e.Message = eb.Type, eb.Error
	} else {
		e.Body = clip(body, 4096)
	}
	if v := h.Get("Retry-After"); v != "" {
		e.RetryAfterAsked, _ = parseRetryAfter(v, now)
		e.RetryAfter = min(e.RetryAfterAsked, maxRetryAfter)
	}
	return e
}

// retryAfterCeiling bounds a parsed Retry-After so that the duration cannot
// overflow; the client's own cap (WithMaxRetryAfter) is far below it.
const retryAfterCeiling = 365 * 24 * time.Hour

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
// A date in the past gives zero; anything longer than a year gives a year.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		const maxSecs = int64(retryAfterCeiling / time.Second)
		return time.Duration(min(secs, maxSecs)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return min(d, retryAfterCeiling), true
	}
	return 0, false
}

// DecodeError is a 2xx answer whose body could not be decoded into the
// expected type.
type DecodeError struct {
	Area     Area
	Endpoint string
	Status   int
	Body     string // the first bytes of the body
	Err      error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("exchange: %s %s: HTTP %d with undecodable body %q: %v",
		e.Area, e.Endpoint, e.Status, e.Body, e.Err)
}

// Unwrap returns the JSON error.
func (e *DecodeError) Unwrap() error { return e.Err }

// ParamError is a request parameter that breaks a rule of the spec; the
// request was not sent.
type ParamError struct {
	Param string // the parameter's wire name
	Value string // the offending value, as it would have been sent
	Rule  string // the rule it breaks
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("exchange: parameter %s = %q: %s", e.Param, e.Value, e.Rule)
}

// Is matches ErrInvalidParam.
func (e *ParamError) Is(target error) bool { return target == ErrInvalidParam }

// baseHint explains a 404 on an endpoint whose path names nothing (GET
// /markets, POST /books, GET /trades): such a path always exists, so the
// area's base address must be wrong, most often for lack of the area's
// path ("http://host:port" instead of "http://host:port/clob"). A 404 on a
// path with a parameter (an order id) is that thing missing: no hint.
func baseHint(area Area, pattern, base string) string {
	if strings.Contains(pattern, "{") {
		return ""
	}
	h := fmt.Sprintf("the %s base address %s answered 404 on a path it always serves", area, base)
	if suffix := "/" + string(area); !strings.HasSuffix(base, suffix) {
		return h + fmt.Sprintf(": it usually ends in %s (try %s%s)", suffix, base, suffix)
	}
	return h + ": check the address"
}

package exchange

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var allSentinels = []error{ErrNotFound, ErrUnauthorized, ErrIPNotAllowlisted, ErrRateLimited, ErrBadRequest, ErrServer, ErrNotReady}

// TestErrorMapping sends each error shape and status through the client
// and checks the APIError fields and the sentinels it matches.
func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		body       string
		header     map[string]string
		wantType   string
		wantMsg    string
		want       []error
		wantInText string
	}{
		{"data unknown field", 400, `{"error":"unknown_field: foo"}`, nil, "", "unknown_field: foo", []error{ErrBadRequest}, "unknown_field: foo"},
		{"data missing field", 400, `{"error":"missing_field: user"}`, nil, "", "missing_field: user", []error{ErrBadRequest}, "missing_field"},
		{"missing field on 422", 422, `{"error":"missing_field: user"}`, nil, "", "missing_field: user", []error{ErrBadRequest}, "HTTP 422"},
		{"ip not allowlisted 403", 403, `{"error":"unauthorized: ip_not_allowlisted"}`, nil, "", MsgIPNotAllowlisted, []error{ErrIPNotAllowlisted}, "ip_not_allowlisted"},
		{"ip not allowlisted message only", 401, `{"error":"unauthorized: ip_not_allowlisted"}`, nil, "", MsgIPNotAllowlisted, []error{ErrIPNotAllowlisted, ErrUnauthorized}, "HTTP 401"},
		{"plain 403", 403, `{"error":"forbidden"}`, nil, "", "forbidden", []error{ErrIPNotAllowlisted}, "forbidden"},
		{"data internal", 500, `{"error":"internal_error: unexpected database failure"}`, nil, "", "internal_error: unexpected database failure", []error{ErrServer}, "database failure"},
		{"internal message on 200-ish status", 418, `{"error":"internal_error: x"}`, nil, "", "internal_error: x", []error{ErrServer}, "HTTP 418"},
		{"catalog not found", 404, `{"type":"not found error","error":"id not found"}`, nil, TypeNotFound, "id not found", []error{ErrNotFound}, "not found error: id not found"},
		{"catalog not found type only", 400, `{"type":"not found error","error":"slug not found"}`, nil, TypeNotFound, "slug not found", []error{ErrNotFound, ErrBadRequest}, "slug not found"},
		{"catalog bad request", 400, `{"type":"bad request","error":"q is required"}`, nil, TypeBadRequest, "q is required", []error{ErrBadRequest}, "q is required"},
		{"catalog bad request type on 409", 409, `{"type":"bad request","error":"x"}`, nil, TypeBadRequest, "x", []error{ErrBadRequest}, "bad request"},
		{"clob 401", 401, `{"error":"invalid signature"}`, nil, "", "invalid signature", []error{ErrUnauthorized}, "invalid signature"},
		{"clob 404", 404, `{"error":"order not found"}`, nil, "", "order not found", []error{ErrNotFound}, "order not found"},
		{"429 seconds", 429, `{"error":"too many requests"}`, map[string]string{"Retry-After": "7"}, "", "too many requests", []error{ErrRateLimited}, "retry after 7s"},
		{"502 html", 502, `<html><body>Bad gateway</body></html>`, nil, "", "", []error{ErrServer}, `unexpected body "<html><body>Bad gateway`},
		{"500 truncated json", 500, `{"error":"internal_err`, nil, "", "", []error{ErrServer}, `unexpected body "{\"error\":\"internal_err"`},
		{"404 empty", 404, ``, nil, "", "", []error{ErrNotFound}, "empty body"},
		{"400 json without error", 400, `{"message":"nope"}`, nil, "", "", []error{ErrBadRequest}, `{\"message\":\"nope\"}`},
		{"long html is clipped", 503, "<p>" + strings.Repeat("x", 5000) + "</p>", nil, "", "", []error{ErrServer, ErrNotReady}, "..."},
		{"503 service not ready", 503, `{"error":"service not ready"}`, map[string]string{"Retry-After": "2"}, "", "service not ready", []error{ErrServer, ErrNotReady}, "retry after 2s"},
		{"425 too early", 425, `{"error":"too early"}`, nil, "", "too early", []error{ErrNotReady}, "HTTP 425"},
		{"teapot maps to nothing", 418, `{"error":"teapot"}`, nil, "", "teapot", nil, "teapot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
			e.handle("GET /clob/markets", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				reply(w, tt.status, tt.body)
			})
			_, err := e.c.Markets(e.ctx, "")
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v (%T), want *APIError", err, err)
			}
			if ae.Status != tt.status || ae.Type != tt.wantType || ae.Message != tt.wantMsg || ae.Area != AreaCLOB || ae.Endpoint != "GET /markets" {
				t.Errorf("APIError = %+v", ae)
			}
			for _, s := range allSentinels {
				want := false
				for _, w := range tt.want {
					want = want || w == s
				}
				if errors.Is(err, s) != want {
					t.Errorf("errors.Is(err, %v) = %v, want %v", s, !want, want)
				}
			}
			if !strings.Contains(err.Error(), tt.wantInText) {
				t.Errorf("message %q lacks %q", err.Error(), tt.wantInText)
			}
			if len(err.Error()) > 600 {
				t.Errorf("message is %d bytes long", len(err.Error()))
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 12 ", 12 * time.Second, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"86400", 24 * time.Hour, true},
		{"99999999999", retryAfterCeiling, true},
		{"Sat, 01 Jun 2124 12:00:00 GMT", retryAfterCeiling, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"Sat, 01 Jun 2024 12:00:30 GMT", 30 * time.Second, true},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDecodeErrorOn2xx(t *testing.T) {
	bodies := []string{`<html>oops</html>`, `{"data":[`, `{"data":"x"}`, ``, strings.Repeat("z", 1000)}
	for _, body := range bodies {
		e := setup(t)
		e.handle("GET /clob/markets", func(w http.ResponseWriter, _ *http.Request, _ []byte) { reply(w, 200, body) })
		_, err := e.c.Markets(e.ctx, "")
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("body %q: err = %v, want *DecodeError", body, err)
		}
		if de.Status != 200 || len(de.Body) > bodyQuote+3 || !strings.HasPrefix(body, strings.TrimSuffix(de.Body, "...")) {
			t.Errorf("DecodeError = %+v", de)
		}
		if de.Unwrap() == nil || !strings.Contains(err.Error(), "undecodable body") {
			t.Errorf("DecodeError message %q", err.Error())
		}
	}
}

// TestTruncatedBody: the server promises more bytes than it sends and
// closes; the client reports a network error quoting what arrived, and a
// read retries it.
func TestTruncatedBody(t *testing.T) {
	e := setup(t, WithRetry(RetryPolicy{MaxAttempts: 2, Jitter: noJitter}))
	var n atomic.Int64
	e.handle("GET /clob/markets", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		n.Add(1)
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"data":[{"condition_id":"0x`))
	})
	_, err := e.c.Markets(e.ctx, "")
	var ne *netError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), `condition_id`) {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 2 {
		t.Errorf("attempts = %d, want 2", n.Load())
	}
}

func TestParamErrorIs(t *testing.T) {
	var err error = &ParamError{Param: "limit", Value: "-1", Rule: "must be between 0 and 10"}
	if !errors.Is(err, ErrInvalidParam) || errors.Is(err, ErrBadRequest) {
		t.Error("ParamError sentinel mapping")
	}
	wrapped := fmt.Errorf("ctx: %w", err)
	var pe *ParamError
	if !errors.As(wrapped, &pe) || pe.Param != "limit" {
		t.Error("errors.As through wrapping")
	}
	if msg := err.Error(); !strings.Contains(msg, "limit") || !strings.Contains(msg, "between 0 and 10") {
		t.Errorf("message %q", msg)
	}
	we := &WaitError{Endpoint: "clob POST /orders", Bucket: "post_order_burst", Delay: time.Second}
	if !errors.Is(we, ErrRateLimited) || !strings.Contains(we.Error(), "post_order_burst") {
		t.Errorf("WaitError %v", we)
	}
}

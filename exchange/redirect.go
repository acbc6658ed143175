package exchange

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrRedirectRefused is matched (errors.Is) by a RedirectError.
var ErrRedirectRefused = errors.New("exchange: redirect refused")

// maxRedirects bounds the redirects a public read follows on its own host.
const maxRedirects = 3

// RedirectError is a redirect the client would not follow: any redirect of
// an authenticated call (the SVC_ headers and the signed body must never
// reach another address, and the spec's authenticated endpoints do not
// move), or a redirect of a public read to another scheme or host.
type RedirectError struct {
	Endpoint string // e.g. "clob POST /orders"
	Status   int    // the 3xx status
	From, To string // the request's URL and the Location it was sent to
	Reason   string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("exchange: %s: refused redirect (HTTP %d) from %s to %s: %s", e.Endpoint, e.Status, e.From, e.To, e.Reason)
}

// Is reports ErrRedirectRefused.
func (e *RedirectError) Is(target error) bool { return target == ErrRedirectRefused }

// redirectPolicy is the http.Client's CheckRedirect: it refuses every
// redirect of a request that carries authentication headers, and on public
// reads any redirect that leaves the original scheme and host, or the
// fourth one.
func redirectPolicy(req *http.Request, via []*http.Request) error {
	first := via[0]
	e := &RedirectError{From: first.URL.String(), To: req.URL.String()}
	if req.Response != nil {
		e.Status = req.Response.StatusCode
	}
	ep, _ := first.Context().Value(endpointKey{}).(redirectInfo)
	e.Endpoint = ep.name
	if ep.auth || hasAuthHeader(first.Header) {
		e.Reason = "an authenticated call never follows a redirect"
		return e
	}
	switch {
	case req.URL.Scheme != first.URL.Scheme || req.URL.Host != first.URL.Host:
		e.Reason = "a public read follows no redirect to another host"
		return e
	case len(via) >= maxRedirects:
		e.Reason = fmt.Sprintf("more than %d redirects", maxRedirects)
		return e
	}
	return nil
}

// endpointKey carries a redirectInfo to redirectPolicy.
type endpointKey struct{}

// redirectInfo is what redirectPolicy knows of the call.
type redirectInfo struct {
	name string
	auth bool
}

// hasAuthHeader reports whether h carries an SVC_ header in any spelling
// (the client writes them with the spec's exact, non-canonical spelling).
func hasAuthHeader(h http.Header) bool {
	for k := range h {
		for _, n := range authHeaderNames {
			if strings.EqualFold(k, n) {
				return true
			}
		}
	}
	return false
}

// withRedirectPolicy returns a copy of hc that applies redirectPolicy; the
// caller's client is not modified.
func withRedirectPolicy(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = redirectPolicy
	return &c
}

package exchange

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// evilHost is a second loopback server that counts what reaches it: a
// redirect the client follows to it would hand it the request's headers
// and body.
type evilHost struct {
	srv     *httptest.Server
	mu      sync.Mutex
	hits    int
	svc     int // requests that carried an SVC_ header
	bodies  []string
	lastURL string
}

func newEvilHost(t *testing.T) *evilHost {
	h := &evilHost{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.hits++
		for name := range r.Header {
			if strings.HasPrefix(strings.ToUpper(name), "SVC_") {
				h.svc++
				break
			}
		}
		b := make([]byte, 1<<10)
		n, _ := r.Body.Read(b)
		h.bodies = append(h.bodies, string(b[:n]))
		h.lastURL = r.URL.String()
		reply(w, 200, `[]`)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// TestAuthenticatedCallsNeverFollowRedirects: a 307 or 308 on POST
// /orders, DELETE /order or GET /data/order is refused, whatever its
// target (another host, or the same one): nothing reaches the target, the
// error is a *RedirectError, the observer hears of it once per call, and
// the call is not retried.
func TestAuthenticatedCallsNeverFollowRedirects(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var refused []*RedirectError
		e := setup(t, WithObserver(Observer{RedirectRefused: func(err *RedirectError) { refused = append(refused, err) }}))
		evil := newEvilHost(t)
		var hits int
		redirect := func(to string) func(w http.ResponseWriter, r *http.Request, _ []byte) {
			return func(w http.ResponseWriter, r *http.Request, _ []byte) {
				hits++
				http.Redirect(w, r, to+r.URL.Path, status)
			}
		}
		e.handle("POST /clob/orders", redirect(evil.srv.URL))
		e.handle("DELETE /clob/order", redirect(evil.srv.URL))
		e.handle("GET /clob/data/order/{id}", redirect(e.srv.URL+"/clob/elsewhere")) // same host
		e.handle("/clob/elsewhere/", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			t.Error("same-host redirect of an authenticated call followed")
		})
		calls := map[string]func() error{
			"place": func() error {
				_, err := e.c.PlaceOrders(e.ctx, []PlacementItem{{Order: SignedOrder{Side: Buy, Salt: "1"}, OrderType: GTC, Owner: "the-api-key"}})
				return err
			},
			"cancel": func() error { _, err := e.c.CancelOrder(e.ctx, "0x1"); return err },
			"order":  func() error { _, err := e.c.Order(e.ctx, "0x1"); return err },
		}
		for name, call := range calls {
			err := call()
			var re *RedirectError
			if !errors.As(err, &re) || !errors.Is(err, ErrRedirectRefused) || re.Status != status || !strings.Contains(re.Reason, "authenticated") {
				t.Errorf("%d %s: err = %v, want a RedirectError for an authenticated call", status, name, err)
			}
		}
		if evil.hits != 0 || evil.svc != 0 {
			t.Errorf("%d: the other host got %d requests (%d with SVC_ headers), bodies %q", status, evil.hits, evil.svc, evil.bodies)
		}
		if hits != 3 || len(refused) != 3 {
			t.Errorf("%d: server hits %d, observer told %d times; want 3 and 3 (one attempt each, no retry)", status, hits, len(refused))
		}
		for _, r := range refused {
			if r.Endpoint == "" || r.To == "" {
				t.Errorf("observer got %+v", r)
			}
		}
	}
}

// TestPublicReadsStayOnTheirHost: a public read follows a redirect on its
// own host, refuses one to another host (nothing reaches it, no retry), and
// refuses a loop.
func TestPublicReadsStayOnTheirHost(t *testing.T) {
	e := setup(t)
	evil := newEvilHost(t)
	e.handle("POST /clob/books", func(w http.ResponseWriter, r *http.Request, _ []byte) {
		http.Redirect(w, r, "/clob/books2", http.StatusTemporaryRedirect)
	})
	e.handle("POST /clob/books2", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		reply(w, 200, `[{"asset_id":"1","market":"0xm","bids":[],"asks":[],"timestamp":"1","hash":"h","tick_size":"0.01","min_order_size":"5","neg_risk":false}]`)
	})
	if books, err := e.c.Books(e.ctx, []string{"1"}); err != nil || len(books) != 1 {
		t.Fatalf("same-host redirect: %v %v", books, err)
	}
	var away int
	e.handle("GET /data/trades", func(w http.ResponseWriter, r *http.Request, _ []byte) {
		away++
		http.Redirect(w, r, evil.srv.URL+"/trades", http.StatusFound)
	})
	_, err := e.c.Trades(e.ctx, TradesParams{})
	if !errors.Is(err, ErrRedirectRefused) || evil.hits != 0 || away != 1 {
		t.Errorf("redirect to another host: err %v, other host hits %d, attempts %d", err, evil.hits, away)
	}
	e.handle("GET /clob/markets", func(w http.ResponseWriter, r *http.Request, _ []byte) {
		http.Redirect(w, r, "/clob/markets", http.StatusFound)
	})
	if _, err := e.c.Markets(e.ctx, ""); !errors.Is(err, ErrRedirectRefused) || !strings.Contains(err.Error(), "more than 3 redirects") {
		t.Errorf("redirect loop: %v", err)
	}
}

// TestWithHTTPClientNotModified: the caller's http.Client keeps its own
// redirect policy.
func TestWithHTTPClientNotModified(t *testing.T) {
	hc := &http.Client{}
	if _, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"}, WithHTTPClient(hc)); err != nil {
		t.Fatal(err)
	}
	if hc.CheckRedirect != nil {
		t.Error("NewClient changed the caller's http.Client")
	}
}

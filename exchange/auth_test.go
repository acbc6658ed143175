package exchange

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
)

// headerSpy records the raw header keys of each request before sending it.
type headerSpy struct {
	next http.RoundTripper
	keys []map[string]bool
}

func (s *headerSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	k := map[string]bool{}
	for name := range r.Header {
		k[name] = true
	}
	s.keys = append(s.keys, k)
	return s.next.RoundTrip(r)
}

func TestAuthenticatedCallsWithoutAuthenticatorSendNothing(t *testing.T) {
	e := setup(t)
	e.c.auth = nil
	var hits atomic.Int64
	e.handle("/", func(w http.ResponseWriter, _ *http.Request, _ []byte) { hits.Add(1); reply(w, 200, `{}`) })
	calls := map[string]func() error{
		"order": func() error { _, err := e.c.Order(e.ctx, "0x1"); return err },
		"place": func() error {
			_, err := e.c.PlaceOrders(e.ctx, []PlacementItem{{Order: SignedOrder{Side: Buy}, OrderType: GTC}})
			return err
		},
		"cancel": func() error { _, err := e.c.CancelOrder(e.ctx, "0x1"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrNoAuthenticator) {
			t.Errorf("%s: err = %v, want ErrNoAuthenticator", name, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("server saw %d requests", hits.Load())
	}
	if b := e.c.Buckets(t0); b[bCLOBGeneral].Admitted != 0 {
		t.Errorf("limiter charged %d units for calls never sent", b[bCLOBGeneral].Admitted)
	}
}

func TestAuthenticatorErrorSendsNothing(t *testing.T) {
	e := setup(t)
	e.c.auth = &fakeAuth{err: errors.New("key locked")}
	var hits atomic.Int64
	e.handle("/", func(w http.ResponseWriter, _ *http.Request, _ []byte) { hits.Add(1) })
	_, err := e.c.CancelOrder(e.ctx, "0x1")
	if err == nil || hits.Load() != 0 {
		t.Fatalf("err = %v, hits = %d", err, hits.Load())
	}
}

func TestAuthHeadersSentWithSpecSpelling(t *testing.T) {
	e := setup(t)
	spy := &headerSpy{next: e.srv.Client().Transport}
	e.c.hc = &http.Client{Transport: spy}
	e.handle("DELETE /clob/order", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		reply(w, 200, `{"canceled":[],"not_canceled":{"0x1":"not found"}}`)
	})
	res, err := e.c.CancelOrder(e.ctx, "0x1")
	if err != nil {
		t.Fatal(err)
	}
	if res.NotCanceled["0x1"] != "not found" {
		t.Errorf("result %+v", res)
	}
	for _, h := range authHeaderNames {
		if !spy.keys[0][h] {
			t.Errorf("header %s not sent with that exact spelling (sent %v)", h, spy.keys[0])
		}
	}
}

// TestRetriedOrderReadIsSignedAgain: GET /data/order is idempotent, so it
// is retried, and every attempt carries its own signature.
func TestRetriedOrderReadIsSignedAgain(t *testing.T) {
	e := setup(t)
	auth := &fakeAuth{}
	e.c.auth = auth
	var hits atomic.Int64
	e.handle("GET /clob/data/order/{id}", func(w http.ResponseWriter, r *http.Request, _ []byte) {
		n := hits.Add(1)
		if r.Header.Get(HeaderSignature) != fakeSig("GET", "/data/order/0x1", nil) {
			t.Errorf("attempt %d: bad signature", n)
		}
		if n == 1 {
			reply(w, 503, `{"error":"busy"}`)
			return
		}
		reply(w, 200, `{"order":{"id":"0x1","status":"LIVE","originalSize":"1","sizeMatched":"0","price":"0.5"}}`)
	})
	o, err := e.c.Order(e.ctx, "0x1")
	if err != nil || o.ID != "0x1" {
		t.Fatalf("Order = %+v, %v", o, err)
	}
	if len(auth.calls) != 2 {
		t.Errorf("authenticator called %d times, want 2", len(auth.calls))
	}
}

package exchange

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

// A 404 on a path every exchange serves means the base address is wrong:
// the error says so and suggests the area's usual path. A 404 on a path
// that names a thing (an order id) is the thing missing: no hint.
func TestNotFoundHintsAtTheBaseAddress(t *testing.T) {
	e := setup(t)
	notFound := func(w http.ResponseWriter, _ *http.Request, _ []byte) { reply(w, 404, `{"error":"not found"}`) }
	e.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { notFound(w, r, nil) })
	root := func(ep Endpoints) *Client {
		c, err := NewClient(ep, WithHTTPClient(e.srv.Client()), WithClock(e.clk), WithAuthenticator(&fakeAuth{}),
			WithRetry(RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	bare := root(Endpoints{CLOB: e.srv.URL, Data: e.srv.URL + "/"})
	_, err := bare.Markets(e.ctx, "")
	want := "exchange: clob GET /markets: HTTP 404 not found; the clob base address " + e.srv.URL +
		" answered 404 on a path it always serves: it usually ends in /clob (try " + e.srv.URL + "/clob)"
	if err == nil || err.Error() != want {
		t.Errorf("GET /markets at the bare host:\n got %v\nwant %s", err, want)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("%v does not match ErrNotFound", err)
	}
	if _, err := bare.Trades(e.ctx, TradesParams{}); err == nil || !strings.Contains(err.Error(), "it usually ends in /data (try "+e.srv.URL+"/data)") {
		t.Errorf("GET /trades at the bare host: %v", err)
	}

	// the base is right but the order is unknown: no hint
	e.handle("GET /clob/order/{id}", notFound)
	if _, err := e.c.Order(e.ctx, "0x01"); err == nil || strings.Contains(err.Error(), "base address") {
		t.Errorf("unknown order: %v, want a plain 404", err)
	}
	// a base that already ends in the area's path: the hint does not
	// suggest appending it again
	if _, err := e.c.Markets(e.ctx, ""); err == nil || !strings.Contains(err.Error(), "the clob base address "+e.srv.URL+"/clob answered 404") ||
		strings.Contains(err.Error(), "try") {
		t.Errorf("GET /markets at .../clob answering 404: %v", err)
	}
}

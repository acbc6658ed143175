package sim

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

func TestOpenOrdersAndSubmissionTracker(t *testing.T) {
	env := setup(t, 2)
	ex := env.ex
	tr := ex.TrackSubmissions(ex.Handler())
	srv := httptest.NewServer(tr)
	t.Cleanup(srv.Close)
	a, b := env.accs[0], env.accs[1]
	client, err := exchange.NewClient(exchange.Endpoints{Data: srv.URL + "/data", Catalog: srv.URL + "/catalog", CLOB: srv.URL + "/clob"},
		exchange.WithRetry(exchange.RetryPolicy{MaxAttempts: 1}), exchange.WithAuthenticator(a.l2))
	if err != nil {
		t.Fatal(err)
	}
	s := env.openMarket(false)
	bid := a.order(t, s, 0, exchange.Buy, "0.10", "10", exchange.GTC)
	bid2 := a.order(t, s, 1, exchange.Buy, "0.10", "10", exchange.GTC)
	ctx := context.Background()
	res, err := client.PlaceOrders(ctx, []exchange.PlacementItem{bid, bid2})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{res[0].OrderID, res[1].OrderID}
	for i, r := range res {
		if !r.Success || r.Status != exchange.PlaceLive {
			t.Fatalf("placement %d: %+v", i, r)
		}
	}
	slices.Sort(ids)
	if got := ex.OpenOrders(a.creds.APIKey); !slices.Equal(got, ids) {
		t.Fatalf("OpenOrders = %v, want %v", got, ids)
	}
	if got := ex.OpenOrdersByMarket(a.creds.APIKey); len(got) != 1 || got[s.m.ConditionID] != 2 {
		t.Fatalf("OpenOrdersByMarket = %v, want 2 in %s", got, s.m.ConditionID)
	}
	if got := ex.OpenOrders(b.creds.APIKey); len(got) != 0 {
		t.Fatalf("other account's OpenOrders = %v, want none", got)
	}
	if got := ex.OpenOrders("no-such-key"); got != nil {
		t.Fatalf("unknown key: %v", got)
	}
	for _, id := range ids {
		if n := tr.Count(id); n != 1 {
			t.Fatalf("Count(%s) = %d, want 1", id, n)
		}
	}
	if d := tr.Duplicates(); len(d) != 0 {
		t.Fatalf("Duplicates = %v before any resend", d)
	}

	// The same signed order again: refused by the exchange, counted twice.
	res, err = client.PlaceOrders(ctx, []exchange.PlacementItem{bid})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Success {
		t.Fatalf("duplicate accepted: %+v", res[0])
	}
	if n := tr.Count(res[0].OrderID); n != 2 {
		t.Fatalf("Count after resend = %d, want 2", n)
	}
	if d := tr.Duplicates(); len(d) != 1 || d[res[0].OrderID] != 2 {
		t.Fatalf("Duplicates = %v", d)
	}
	if tr.Distinct() != 2 {
		t.Fatalf("Distinct = %d, want 2", tr.Distinct())
	}
	if bs := tr.Batches(); len(bs) != 2 || bs[0].Orders != 2 || bs[1].Orders != 1 {
		t.Fatalf("Batches = %+v", bs)
	}

	// A cancelled order leaves the open list.
	if _, err := client.CancelOrder(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if got := ex.OpenOrders(a.creds.APIKey); !slices.Equal(got, ids[1:]) {
		t.Fatalf("OpenOrders after cancel = %v, want %v", got, ids[1:])
	}

	// A body that does not decode is counted as one invalid batch and still
	// reaches the exchange (which refuses it).
	resp, err := http.Post(srv.URL+"/clob/orders", "application/json", bytes.NewReader([]byte("{not json")))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad body answered %d", resp.StatusCode)
	}
	if tr.Invalid() != 1 || len(tr.Batches()) != 3 {
		t.Fatalf("Invalid = %d, batches %d", tr.Invalid(), len(tr.Batches()))
	}
}

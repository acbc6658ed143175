package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// builderHistory turns builder trades into the account's own trades: our
// resting orders among a trade's maker orders (with their matched amount),
// our taking order of a TAKER trade (with the trade's size); other
// accounts' orders are left out; `after` is the cursor's second less one.
// t1 comes in the live exchange's shape (trader_side, match_time in Unix
// seconds).
func TestBuilderHistoryOwnTrades(t *testing.T) {
	const me = "0xMe00000000000000000000000000000000000001"
	var after string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/clob/builder/trades" || r.URL.Query().Get("maker_address") != me {
			http.Error(w, `{"error":"bad"}`, http.StatusBadRequest)
			return
		}
		after = r.URL.Query().Get("after")
		w.Header().Set("Content-Type", "application/json")
		if c := r.URL.Query().Get("next_cursor"); c != "" && c != exchange.FirstCursor {
			_, _ = w.Write([]byte(`[]`))
			return
		}
		_, _ = w.Write([]byte(`[
 {"id":"t2","type":"TAKER","status":"MATCHED","taker_order_id":"0xours2","maker_address":"` + me + `","size":"7","match_time":"2026-11-25T00:00:02.000Z",
  "maker_orders":[{"order_id":"0xtheirs","maker_address":"0xother","matched_amount":"7"}]},
 {"id":"t1","trader_side":"MAKER","status":"CONFIRMED","taker_order_id":"0xtaker","maker_address":"` + me + `","size":"3","match_time":"1795564801",
  "maker_orders":[{"order_id":"0xours1","maker_address":"` + me + `","matched_amount":"3"}]}
]`))
	}))
	defer srv.Close()
	c, err := exchange.NewClient(exchange.Endpoints{Data: srv.URL + "/data", Catalog: srv.URL + "/catalog", CLOB: srv.URL + "/clob"})
	if err != nil {
		t.Fatal(err)
	}
	h := builderHistory{c: c, maker: me, max: 100}
	since := time.Date(2026, 11, 25, 0, 0, 1, 500e6, time.UTC)
	got, err := h.OwnTrades(context.Background(), since)
	if err != nil {
		t.Fatal(err)
	}
	if want := since.Unix() - 1; after != decimal.NewFromInt(want).String() {
		t.Fatalf("after=%s, want %d", after, want)
	}
	if len(got) != 2 {
		t.Fatalf("%d own trades, want 2: %+v", len(got), got)
	}
	if g := got[0]; g.ID != "t2" || g.OrderID != "0xours2" || !g.Size.Equal(decimal.NewFromInt(7)) || g.Time.Second() != 2 {
		t.Fatalf("taker trade %+v", g)
	}
	if g := got[1]; g.ID != "t1" || g.OrderID != "0xours1" || !g.Size.Equal(decimal.NewFromInt(3)) || g.Time.Second() != 1 {
		t.Fatalf("maker trade %+v", g)
	}
	if !hasBuilderCode("0x"+"00ab") || hasBuilderCode("") || hasBuilderCode("0x0000") {
		t.Fatal("hasBuilderCode")
	}
}

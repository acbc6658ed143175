package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// rawAuthed sends body as it is, with a's authentication, to the CLOB path.
func rawAuthed(t *testing.T, env *testEnv, a *testAccount, method, path, body string) (int, string) {
	t.Helper()
	h, err := a.l2.AuthHeaders(method, path, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, env.urls.CLOB+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// officialItem is item as the official V2 client's postOrders sends it:
// deferExec and postOnly in the item, expiration in the order. fields
// replaces or adds keys of the order.
func officialItem(t *testing.T, item exchange.PlacementItem, fields map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(item)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["deferExec"], m["postOnly"] = false, false
	o := m["order"].(map[string]any)
	o["expiration"] = "0"
	for k, v := range fields {
		o[k] = v
	}
	return m
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPlaceBodyExact(t *testing.T) {
	env := setup(t, 1)
	a := env.accs[0]
	s := env.openMarket(false)
	item := a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC)
	body := mustJSON(t, []exchange.PlacementItem{item})
	for _, c := range []struct{ name, body string }{
		{"trailing bytes", body + "xyz"},
		{"a second value", body + " []"},
		{"owner key in another case", strings.Replace(body, `"owner"`, `"OWNER"`, 1)},
		{"duplicate owner", strings.Replace(body, `"owner":`, `"owner":"x","owner":`, 1)},
		{"malformed known field beside the official client's", mustJSON(t, []any{officialItem(t, item, map[string]any{"signatureType": "0"})})},
	} {
		st, resp := rawAuthed(t, env, a, http.MethodPost, "/orders", c.body)
		if st != http.StatusBadRequest || !strings.Contains(resp, `"error":"invalid body: `) {
			t.Errorf("%s: %d %s, want 400 invalid body", c.name, st, resp)
		}
	}
	if open := env.ex.OpenOrders(a.creds.APIKey); len(open) != 0 {
		t.Fatalf("refused bodies placed orders: %v", open)
	}
}

// TestPlaceOfficialClientItem: the official client's items are accepted,
// their unknown fields ignored.
func TestPlaceOfficialClientItem(t *testing.T) {
	env := setup(t, 1)
	a := env.accs[0]
	item := a.order(t, env.openMarket(false), 0, exchange.Buy, "0.1", "5", exchange.GTC)
	st, resp := rawAuthed(t, env, a, http.MethodPost, "/orders", mustJSON(t, []any{officialItem(t, item, nil)}))
	var res []exchange.PlacementResult
	if st != http.StatusOK || json.Unmarshal([]byte(resp), &res) != nil || len(res) != 1 || !res[0].Success || res[0].Status != exchange.PlaceLive {
		t.Fatalf("the official client's item: %d %s, want placed and live", st, resp)
	}
}

func TestCancelBodyExact(t *testing.T) {
	env := setup(t, 1)
	a := env.accs[0]
	s := env.openMarket(false)
	res := a.place(t, a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC), a.order(t, s, 0, exchange.Buy, "0.11", "5", exchange.GTC))
	x, y := res[0].OrderID, res[1].OrderID
	for _, c := range []struct{ name, body string }{
		{"trailing bytes", `{"orderId":"` + x + `"}xyz`},
		{"a second value", `{"orderId":"` + x + `"} {}`},
		{"key in another case", `{"orderID":"` + x + `"}`},
		{"key upper case", `{"ORDERID":"` + x + `"}`},
		{"two keys that fold together", `{"orderId":"` + x + `","orderID":"` + y + `"}`},
		{"duplicate key", `{"orderId":"` + x + `","orderId":"` + y + `"}`},
		{"unknown field", `{"orderId":"` + x + `","reason":"test"}`},
	} {
		st, resp := rawAuthed(t, env, a, http.MethodDelete, "/order", c.body)
		if st != http.StatusBadRequest || !strings.Contains(resp, `"error":"invalid body: `) {
			t.Errorf("%s: %d %s, want 400 invalid body", c.name, st, resp)
		}
	}
	if open := env.ex.OpenOrders(a.creds.APIKey); len(open) != 2 {
		t.Fatalf("refused cancels cancelled orders: %d live, want 2", len(open))
	}
	st, resp := rawAuthed(t, env, a, http.MethodDelete, "/order", `{"orderId":"`+y+`"}`+"\n")
	if st != http.StatusOK || !strings.Contains(resp, y) {
		t.Fatalf("exact cancel: %d %s", st, resp)
	}
}

func TestBooksBodyExact(t *testing.T) {
	env := setup(t, 0)
	tok := env.openMarket(false).m.TokenIDs[0]
	post := func(body string) (int, string) {
		resp, err := http.Post(env.urls.CLOB+"/books", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct{ name, body string }{
		{"trailing bytes", `[{"token_id":"` + tok + `"}]xyz`},
		{"key in another case", `[{"Token_ID":"` + tok + `"}]`},
		{"duplicate key", `[{"token_id":"x","token_id":"` + tok + `"}]`},
		{"unknown field", `[{"token_id":"` + tok + `","side":"BUY"}]`},
	} {
		if st, resp := post(c.body); st != http.StatusBadRequest || !strings.Contains(resp, `"error":"invalid body: `) {
			t.Errorf("%s: %d %s, want 400 invalid body", c.name, st, resp)
		}
	}
	if st, resp := post(`[{"token_id":"` + tok + `"}]`); st != http.StatusOK {
		t.Fatalf("exact body: %d %s", st, resp)
	}
}

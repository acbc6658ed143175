package sim

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// officialV2Body writes a POST /orders body as the official V2 client's
// postOrders sends it (JSON.stringify of its order payloads): per item
// deferExec, order, owner, orderType and postOnly in that order; in the
// order salt as a JSON number, no conditionId, an expiration, and the
// other fields as strings (signatureType a number). The values are those of
// items, signed by this project's signer.
func officialV2Body(t *testing.T, items ...exchange.PlacementItem) string {
	t.Helper()
	var parts []string
	for _, it := range items {
		o := it.Order
		salt, err := strconv.ParseUint(o.Salt, 10, 53)
		if err != nil {
			t.Fatalf("salt %q: %v", o.Salt, err)
		}
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		parts = append(parts, fmt.Sprintf(`{"deferExec":false,"order":{"salt":%d,"maker":%s,"signer":%s,"tokenId":%s,"makerAmount":%s,"takerAmount":%s,`+
			`"side":%s,"expiration":"0","signatureType":%d,"timestamp":%s,"metadata":%s,"builder":%s,"signature":%s},"owner":%s,"orderType":%s,"postOnly":false}`,
			salt, q(o.Maker), q(o.Signer), q(o.TokenID), q(o.MakerAmount), q(o.TakerAmount), q(string(o.Side)), o.SignatureType,
			q(o.Timestamp), q(o.Metadata), q(o.Builder), q(o.Signature), q(it.Owner), q(string(it.OrderType))))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// officialHeaders are the L2 headers as the official client makes them:
// POLY_ names, POLY_SIGNATURE the HMAC-SHA256 of timestamp + method + path
// + body in base64url with its padding. signedBody is what the HMAC
// covers (the body sent, unless a test forges it).
func officialHeaders(t *testing.T, a *testAccount, ts int64, method, path, signedBody string) map[string]string {
	t.Helper()
	key, err := base64.URLEncoding.DecodeString(a.creds.Secret.Reveal())
	if err != nil {
		t.Fatalf("secret: %v", err)
	}
	m := hmac.New(sha256.New, key)
	_, _ = io.WriteString(m, strconv.FormatInt(ts, 10)+method+path+signedBody)
	return map[string]string{
		"POLY_ADDRESS": a.creds.Address, "POLY_API_KEY": a.creds.APIKey, "POLY_PASSPHRASE": a.creds.Passphrase.Reveal(),
		"POLY_TIMESTAMP": strconv.FormatInt(ts, 10), "POLY_SIGNATURE": base64.URLEncoding.EncodeToString(m.Sum(nil)),
	}
}

// sendThroughShim sends body with the official client's headers renamed
// POLY_* → SVC_*, as a shim in front of mmbot sim does, and nothing else
// changed.
func sendThroughShim(t *testing.T, env *testEnv, headers map[string]string, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, env.urls.CLOB+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header[strings.Replace(k, "POLY_", "SVC_", 1)] = []string{v}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The official V2 client's postOrders, through a shim that only renames
// its headers, is accepted: salt as a JSON number, SVC_SIGNATURE in
// base64url. The HMAC is still verified, and the rest stays strict.
func TestPlaceOfficialV2ClientExactForm(t *testing.T) {
	env := setup(t, 1)
	a := env.accs[0]
	s := env.openMarket(false)
	items := []exchange.PlacementItem{
		a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC),
		a.order(t, s, 1, exchange.Buy, "0.2", "6", exchange.GTC),
	}
	body := officialV2Body(t, items...)
	if !strings.Contains(body, `"salt":`+items[0].Order.Salt+`,`) || strings.Contains(body, "conditionId") {
		t.Fatalf("not the official client's form: %s", body)
	}
	now := time.Now().Unix()

	st, resp := sendThroughShim(t, env, officialHeaders(t, a, now, "POST", "/orders", body), "POST", "/orders", body)
	var res []exchange.PlacementResult
	if st != http.StatusOK || json.Unmarshal([]byte(resp), &res) != nil || len(res) != 2 {
		t.Fatalf("the official client's postOrders: %d %s, want 200 with two results", st, resp)
	}
	for i, r := range res {
		if !r.Success || r.Status != exchange.PlaceLive {
			t.Errorf("item %d: %+v, want placed and live", i, r)
		}
	}
	if open := env.ex.OpenOrders(a.creds.APIKey); len(open) != 2 {
		t.Errorf("%d orders open, want 2", len(open))
	}
	// The order reads back with the salt the client signed.
	o, err := a.client.Order(t.Context(), res[0].OrderID)
	if err != nil || o.Status != exchange.StatusLive || o.OriginalSize.String() != "5" {
		t.Errorf("order read: %+v, %v", o, err)
	}

	// A base64url signature of another request is refused, and so is one
	// with the wrong length.
	other := officialV2Body(t, a.order(t, s, 0, exchange.Buy, "0.11", "5", exchange.GTC))
	forged := officialHeaders(t, a, now, "POST", "/orders", body)
	st, resp = sendThroughShim(t, env, forged, "POST", "/orders", other)
	if st != http.StatusUnauthorized || !strings.Contains(resp, "unauthorized: invalid request signature") {
		t.Errorf("a base64url HMAC of another body: %d %s, want 401 invalid request signature", st, resp)
	}
	short := officialHeaders(t, a, now, "POST", "/orders", other)
	short["POLY_SIGNATURE"] = short["POLY_SIGNATURE"][:40]
	st, resp = sendThroughShim(t, env, short, "POST", "/orders", other)
	if st != http.StatusUnauthorized || !strings.Contains(resp, "malformed authentication header") {
		t.Errorf("a cut signature: %d %s, want 401 malformed", st, resp)
	}

	// Strict elsewhere: a duplicate key or a salt that is not an integer
	// is still refused, in the official form too.
	for name, bad := range map[string]string{
		"duplicate salt":                  strings.Replace(other, `"salt":`, `"salt":1,"salt":`, 1),
		"fractional salt":                 strings.Replace(other, `,"maker"`, `.5,"maker"`, 1),
		"unknown field in a strict place": strings.Replace(other, `"orderType":"GTC"`, `"orderType":"GTC","x":{"a":1,"a":2}`, 1),
	} {
		st, resp := sendThroughShim(t, env, officialHeaders(t, a, now, "POST", "/orders", bad), "POST", "/orders", bad)
		if st != http.StatusBadRequest || !strings.Contains(resp, "invalid body") {
			t.Errorf("%s: %d %s, want 400 invalid body", name, st, resp)
		}
	}
	if open := env.ex.OpenOrders(a.creds.APIKey); len(open) != 2 {
		t.Errorf("refused requests placed orders: %d open, want 2", len(open))
	}
}

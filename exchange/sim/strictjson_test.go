package sim

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// strictCases is the table of the strict decoder, also the fuzz seeds.
var strictCases = []struct {
	name    string
	body    string
	into    string // "items", "cancel" or "refs"
	wantErr string // "" for success
}{
	{"cancel", `{"orderId":"0xab"}`, "cancel", ""},
	{"cancel with whitespace after", " {\"orderId\":\"0xab\"} \r\n\t", "cancel", ""},
	{"cancel trailing bytes", `{"orderId":"0xab"}xyz`, "cancel", "trailing data"},
	{"cancel second value", `{"orderId":"0xab"} {"orderId":"0xcd"}`, "cancel", "trailing data"},
	{"cancel trailing brace", `{"orderId":"0xab"}}`, "cancel", "trailing data"},
	{"cancel key in another case", `{"orderID":"0xab"}`, "cancel", `orderID: unknown field (keys are case-sensitive: want "orderId")`},
	{"cancel key upper case", `{"ORDERID":"0xab"}`, "cancel", "keys are case-sensitive"},
	{"cancel duplicate in another case", `{"orderId":"0xab","orderID":"0xcd"}`, "cancel", "case-sensitive"},
	{"cancel duplicate key", `{"orderId":"0xab","orderId":"0xcd"}`, "cancel", "orderId: duplicate key"},
	{"cancel unknown field", `{"orderId":"0xab","x":1}`, "cancel", "x: unknown field"},
	{"cancel wrong type", `{"orderId":5}`, "cancel", "orderId: cannot be a JSON number"},
	{"empty body", ``, "cancel", "unexpected end"},
	{"not JSON", `{"orderId":`, "cancel", "unexpected end"},
	{"broken JSON", `{"orderId" "0xab"}`, "cancel", "not JSON"},
	{"cancel null", `null`, "cancel", ""},

	{"items", `[{"order":{"salt":"1","side":"BUY","signatureType":0},"orderType":"GTC","owner":"k"}]`, "items", ""},
	{"items trailing bytes", `[{"order":{"salt":"1"},"orderType":"GTC","owner":"k"}]xyz`, "items", "trailing data"},
	{"items official client fields", `[{"deferExec":false,"postOnly":false,"order":{"salt":"1","expiration":"0","side":"SELL"},"orderType":"GTD","owner":"k"}]`, "items", ""},
	{"items unknown nested value", `[{"extra":{"a":[1,{"b":null}]},"order":{"salt":"1"},"orderType":"GTC","owner":"k"}]`, "items", ""},
	{"items duplicate inside an unknown value", `[{"extra":{"a":1,"a":2},"order":{},"orderType":"GTC","owner":"k"}]`, "items", "[0].extra.a: duplicate key"},
	{"items duplicate item key", `[{"owner":"k","owner":"j","order":{}}]`, "items", "[0].owner: duplicate key"},
	{"items duplicate order key", `[{},{"order":{"salt":"1","salt":"2"}}]`, "items", "[1].order.salt: duplicate key"},
	{"items key in another case", `[{"order":{"tokenID":"1"}}]`, "items", `[0].order.tokenID: unknown field (keys are case-sensitive: want "tokenId")`},
	{"items owner in another case", `[{"Owner":"k"}]`, "items", "case-sensitive"},
	{"items malformed known field", `[{"deferExec":true,"order":{"signatureType":"0"},"owner":"k"}]`, "items", "signatureType: cannot be a JSON string"},
	{"items malformed side", `[{"order":{"side":1}}]`, "items", "cannot be a JSON number"},
	{"items not an array", `{"order":{}}`, "items", "cannot be a JSON object"},
	{"items salt a JSON integer (official client)", `[{"deferExec":false,"order":{"salt":1234567890123,"side":"BUY","signatureType":0},"orderType":"GTC","owner":"k"}]`, "items", ""},
	{"items salt 0", `[{"order":{"salt":0}}]`, "items", ""},
	{"items salt a fraction", `[{"order":{"salt":1.5}}]`, "items", "order.salt: the JSON number 1.5 is not a non-negative integer"},
	{"items salt negative", `[{"order":{"salt":-7}}]`, "items", "order.salt"},
	{"items salt with an exponent", `[{"order":{"salt":1e21}}]`, "items", "order.salt"},
	{"items salt with a leading zero", `[{"order":{"salt":"1","x":0}},{"order":{"salt":007}}]`, "items", "not JSON"},
	{"items salt an object", `[{"order":{"salt":{}}}]`, "items", "order.salt"},
	{"items salt twice, number and string", `[{"order":{"salt":1,"salt":"1"}}]`, "items", "[0].order.salt: duplicate key"},
	{"items salt key in another case", `[{"order":{"Salt":1}}]`, "items", "case-sensitive"},

	{"refs", `[{"token_id":"1"},{"token_id":"2"}]`, "refs", ""},
	{"refs trailing bytes", `[{"token_id":"1"}]xyz`, "refs", "trailing data"},
	{"refs key in another case", `[{"TOKEN_ID":"1"}]`, "refs", "case-sensitive"},
	{"refs unknown field", `[{"token_id":"1","side":"BUY"}]`, "refs", "[0].side: unknown field"},
	{"refs key with a Kelvin sign", "[{\"to\u212aen_id\":\"1\"}]", "refs", "case-sensitive"},
	{"refs duplicate", `[{"token_id":"1","token_id":"2"}]`, "refs", "duplicate key"},
}

// decodeInto decodes body as a handler would for the target named into.
func decodeInto(body []byte, into string) (any, error) {
	switch into {
	case "items":
		return decodePlacements(body)
	case "cancel":
		var v exchange.CancelRequest
		return v, decodeStrict(body, &v)
	default:
		var v []exchange.TokenRef
		return v, decodeStrict(body, &v)
	}
}

func TestDecodeStrict(t *testing.T) {
	for _, c := range strictCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeInto([]byte(c.body), c.into)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("%s: %v", c.body, err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("%s: error %v, want one containing %q", c.body, err, c.wantErr)
			}
		})
	}
}

func TestDecodeStrictValues(t *testing.T) {
	body := `[{"deferExec":true,"postOnly":false,"order":{"salt":"7","expiration":"0","tokenId":"9","side":"BUY","signatureType":2},"orderType":"GTC","owner":"k"}]`
	items, err := decodePlacements([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []exchange.PlacementItem{{Order: exchange.SignedOrder{Salt: "7", TokenID: "9", Side: exchange.Buy, SignatureType: 2}, OrderType: exchange.GTC, Owner: "k"}}
	if !reflect.DeepEqual(items, want) {
		t.Fatalf("decoded %+v, want %+v", items, want)
	}
	var tv struct{ A int }
	if err := decodeStrict([]byte(`{"A":1}`), tv); err == nil {
		t.Fatal("a non-pointer target was accepted")
	}
}

// FuzzDecodeStrict: whatever the body, decodeStrict never panics, and a
// body it accepts is one valid JSON value that encoding/json decodes to the
// same value (for the cancel body also with unknown fields disallowed), so
// the pre-pass only ever refuses.
func FuzzDecodeStrict(f *testing.F) {
	for i, c := range strictCases {
		f.Add([]byte(c.body), uint8(i))
	}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		into := []string{"items", "cancel", "refs"}[int(which)%3]
		got, err := decodeInto(body, into)
		if err != nil {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		var again any
		var err2 error
		switch into {
		case "items":
			var v []placementWire
			err2, again = json.Unmarshal(body, &v), placementItems(v)
		case "cancel":
			var v exchange.CancelRequest
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			err2, again = dec.Decode(&v), v
		default:
			var v []exchange.TokenRef
			err2, again = json.Unmarshal(body, &v), v
		}
		if err2 != nil || !reflect.DeepEqual(got, again) {
			t.Fatalf("accepted %q as %+v; encoding/json: %+v, %v", body, got, again, err2)
		}
	})
}

package signer

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/secret"
)

// FuzzParseKey checks that ParseKey never panics, that an accepted key
// round-trips through Hex, and that a rejection never quotes its input.
func FuzzParseKey(f *testing.F) {
	for _, k := range knownKeys {
		f.Add(k.key)
		f.Add("0x" + k.key + "\n")
	}
	for _, s := range []string{"", "0x", strings.Repeat("0", 64), strings.Repeat("f", 64), "0x" + strings.Repeat("g", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(secret.New(s))
		if err != nil {
			if trimmed := strings.TrimSpace(s); len(trimmed) >= 8 && strings.Contains(err.Error(), trimmed) {
				t.Fatalf("error quotes the input: %v", err)
			}
			return
		}
		k2, err := ParseKey(k.Hex())
		if err != nil || k2.Address() != k.Address() {
			t.Fatalf("Hex does not round-trip: %v", err)
		}
	})
}

// FuzzVerifyL2 replaces one header of a valid request and checks that
// VerifyL2 never panics and accepts only the unchanged request.
func FuzzVerifyL2(f *testing.F) {
	names := []string{exchange.HeaderAddress, exchange.HeaderAPIKey, exchange.HeaderPassphrase, exchange.HeaderTimestamp, exchange.HeaderSignature}
	now := time.Unix(1_750_000_000, 0)
	addr := testKey(f, "owner").Address()
	creds := testCreds(f)
	l, err := NewL2(creds, addr, fixedClock(now))
	if err != nil {
		f.Fatal(err)
	}
	body := []byte(`[{"order":{}}]`)
	good, _ := l.AuthHeaders("POST", "/orders", body)
	for i := range names {
		f.Add(uint8(i), good[names[i]][0], "POST", "/orders")
		f.Add(uint8(i), "", "POST", "/orders")
		f.Add(uint8(i), "x", "post", "/orders?q=1")
	}
	lookup := func(k string) (Credentials, string, bool) { return creds, addr, k == testAPIKey }
	f.Fuzz(func(t *testing.T, which uint8, val, method, path string) {
		h := http.Header{}
		for k, v := range good {
			h[k] = v
		}
		name := names[int(which)%len(names)]
		h[name] = []string{val}
		_, err := VerifyL2(h, method, path, body, lookup, now, DefaultFreshness)
		if err != nil {
			return
		}
		if name == exchange.HeaderSignature {
			// the HMAC may come in another spelling (hex case, base64url)
			got, err1 := DecodeL2Signature(val)
			want, err2 := DecodeL2Signature(good[name][0])
			if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
				t.Fatalf("accepted %s = %q", name, val)
			}
		} else if val != good[name][0] {
			t.Fatalf("accepted %s = %q", name, val)
		}
		if strings.ToUpper(method) != "POST" || strings.SplitN(path, "?", 2)[0] != "/orders" {
			t.Fatalf("accepted %s %s", method, path)
		}
	})
}

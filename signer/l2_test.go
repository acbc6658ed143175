package signer

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/secret"
)

// The secret is bytes 0xe0..0xff; its base64url form contains '-' and '_'.
const (
	testSecretURL  = "4OHi4-Tl5ufo6err7O3u7_Dx8vP09fb3-Pn6-_z9_v8="
	testSecretStd  = "4OHi4+Tl5ufo6err7O3u7/Dx8vP09fb3+Pn6+/z9/v8="
	testPassphrase = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	testAPIKey     = "2d3f0c7e-8a4b-4c1d-9e2f-0a1b2c3d4e5f"
)

func testCreds(t testing.TB) Credentials {
	c, err := ParseCredentials(testAPIKey, secret.New(testSecretURL), secret.New(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestL2KnownAnswers pins SVC_SIGNATURE against values computed
// independently with Python's hmac module:
// hmac.new(bytes(range(224,256)), ts+METHOD+path+body, sha256).hexdigest().
func TestL2KnownAnswers(t *testing.T) {
	now := time.Unix(1_750_000_000, 999_000_000)
	cases := []struct {
		method, path, body, want string
	}{
		{"POST", "/orders", `[{"order":{}}]`, "f806ee46a295f792fda676b2712d129eae197bb2274737ca667b50c4d13a1818"},
		{"delete", "/order", "", "8ce0ca7d33edcd48b7372f3f96655073c254c14bea63e11a367536e792ba6beb"},
		{"GET", "/data/order/0xabc?x=1&y=2", "", "a1c5f37363a1bba0a9b2ae265867646515f9f1c665bbf6cbc880aead3a63ed27"},
	}
	for _, secretForm := range []string{testSecretURL, testSecretStd, strings.TrimRight(testSecretURL, "=")} {
		creds, err := ParseCredentials(testAPIKey, secret.New(secretForm), secret.New(testPassphrase))
		if err != nil {
			t.Fatal(err)
		}
		l, err := NewL2(creds, strings.ToLower(testKey(t, "owner").Address()), fixedClock(now))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			h, err := l.AuthHeaders(c.method, c.path, []byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"SVC_ADDRESS": testKey(t, "owner").Address(), "SVC_API_KEY": testAPIKey,
				"SVC_PASSPHRASE": testPassphrase, "SVC_TIMESTAMP": "1750000000", "SVC_SIGNATURE": c.want,
			}
			if len(h) != len(want) {
				t.Fatalf("headers %v", h)
			}
			for k, v := range want {
				if got := h[k]; len(got) != 1 || got[0] != v {
					t.Errorf("%s %s: %s = %v, want %s", c.method, c.path, k, got, v)
				}
			}
		}
	}
}

func TestAuthHeadersRejects(t *testing.T) {
	l, err := NewL2(testCreds(t), testWallet, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"", "/orders"}, {"POST", "orders"}, {"POST", ""}} {
		if _, err := l.AuthHeaders(c[0], c[1], nil); err == nil {
			t.Errorf("AuthHeaders(%q, %q) succeeded", c[0], c[1])
		}
	}
	if _, err := NewL2(testCreds(t), "0x12", nil); !errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("bad address: %v", err)
	}
	if _, err := NewL2(Credentials{APIKey: testAPIKey}, testWallet, nil); !errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("empty secret: %v", err)
	}
}

// TestL2OverHTTP sends authenticated requests through a loopback server that
// checks them with VerifyL2, so header spelling survives a real round trip.
func TestL2OverHTTP(t *testing.T) {
	now := time.Unix(1_750_000_000, 0)
	addr := testKey(t, "owner").Address()
	lookup := func(k string) (Credentials, string, bool) {
		if k == testAPIKey {
			return testCreds(t), addr, true
		}
		return Credentials{}, "", false
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		key, err := VerifyL2(r.Header, r.Method, r.URL.Path, body, lookup, now.Add(10*time.Second), DefaultFreshness)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, key)
	}))
	srv.Start()
	t.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("server not on loopback: %s", srv.URL)
	}
	l, err := NewL2(testCreds(t), addr, fixedClock(now))
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, path string, body []byte, tamper func(*http.Request)) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		h, err := l.AuthHeaders(method, path, body)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range h {
			req.Header[k] = v
		}
		if tamper != nil {
			tamper(req)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := send("POST", "/orders", []byte(`[{"a":1}]`), nil); code != 200 || body != testAPIKey {
		t.Fatalf("POST: %d %s", code, body)
	}
	if code, body := send("GET", "/data/order/0x12?verbose=1", nil, nil); code != 200 {
		t.Fatalf("GET with query: %d %s", code, body)
	}
	code, body := send("DELETE", "/order", []byte(`{"orderId":"0x1"}`), func(r *http.Request) {
		r.Body = io.NopCloser(strings.NewReader(`{"orderId":"0x2"}`))
	})
	if code != http.StatusUnauthorized || !strings.Contains(body, ErrBadSignature.Error()) {
		t.Fatalf("changed body: %d %s", code, body)
	}
}

func TestVerifyL2Errors(t *testing.T) {
	now := time.Unix(1_750_000_000, 0)
	addr := testKey(t, "owner").Address()
	lookup := func(k string) (Credentials, string, bool) {
		if k == testAPIKey {
			return testCreds(t), addr, true
		}
		return Credentials{}, "", false
	}
	l, err := NewL2(testCreds(t), addr, fixedClock(now))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"orderId":"0xabc"}`)
	good, _ := l.AuthHeaders("DELETE", "/order", body)
	with := func(k, v string) http.Header {
		h := http.Header{}
		for hk, hv := range good {
			h[hk] = hv
		}
		if v == "" {
			delete(h, k)
		} else {
			h[k] = []string{v}
		}
		return h
	}
	cases := []struct {
		name         string
		h            http.Header
		method, path string
		body         []byte
		now          time.Time
		err          error
	}{
		{"missing address", with(exchange.HeaderAddress, ""), "DELETE", "/order", body, now, ErrMissingHeader},
		{"missing api key", with(exchange.HeaderAPIKey, ""), "DELETE", "/order", body, now, ErrMissingHeader},
		{"missing passphrase", with(exchange.HeaderPassphrase, ""), "DELETE", "/order", body, now, ErrMissingHeader},
		{"missing timestamp", with(exchange.HeaderTimestamp, ""), "DELETE", "/order", body, now, ErrMissingHeader},
		{"missing signature", with(exchange.HeaderSignature, ""), "DELETE", "/order", body, now, ErrMissingHeader},
		{"unknown key", with(exchange.HeaderAPIKey, "00000000-0000-4000-8000-000000000000"), "DELETE", "/order", body, now, ErrUnknownAPIKey},
		{"bad passphrase", with(exchange.HeaderPassphrase, strings.Repeat("f", 64)), "DELETE", "/order", body, now, ErrBadPassphrase},
		{"other address", with(exchange.HeaderAddress, testWallet), "DELETE", "/order", body, now, ErrAddressMismatch},
		{"address not checksummed", with(exchange.HeaderAddress, strings.ToLower(addr)), "DELETE", "/order", body, now, ErrAddressMismatch},
		{"timestamp not a number", with(exchange.HeaderTimestamp, "soon"), "DELETE", "/order", body, now, ErrMalformedHeader},
		{"stale", good, "DELETE", "/order", body, now.Add(31 * time.Second), ErrStaleTimestamp},
		{"from the future", good, "DELETE", "/order", body, now.Add(-31 * time.Second), ErrStaleTimestamp},
		{"signature not hex", with(exchange.HeaderSignature, "xyz"), "DELETE", "/order", body, now, ErrMalformedHeader},
		{"signature base64url of 31 bytes", with(exchange.HeaderSignature, base64.URLEncoding.EncodeToString(make([]byte, 31))), "DELETE", "/order", body, now, ErrMalformedHeader},
		{"signature base64url of another HMAC", with(exchange.HeaderSignature, base64.URLEncoding.EncodeToString(make([]byte, 32))), "DELETE", "/order", body, now, ErrBadSignature},
		{"other body", good, "DELETE", "/order", []byte(`{"orderId":"0xabd"}`), now, ErrBadSignature},
		{"other path", good, "DELETE", "/orders", body, now, ErrBadSignature},
		{"other method", good, "POST", "/order", body, now, ErrBadSignature},
		{"other timestamp", with(exchange.HeaderTimestamp, "1750000001"), "DELETE", "/order", body, now, ErrBadSignature},
	}
	for _, c := range cases {
		_, err := VerifyL2(c.h, c.method, c.path, c.body, lookup, c.now, DefaultFreshness)
		if !errors.Is(err, c.err) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
		}
		if err != nil && (strings.Contains(err.Error(), testPassphrase) || strings.Contains(err.Error(), testSecretURL)) {
			t.Errorf("%s: error leaks a secret: %v", c.name, err)
		}
	}
	// Exactly at the edge of the window is still fresh; canonical header
	// keys (as a Go server sees them) work too.
	canon := http.Header{}
	for k, v := range good {
		canon.Set(k, v[0])
	}
	if _, err := VerifyL2(canon, "delete", "/order", body, lookup, now.Add(30*time.Second), DefaultFreshness); err != nil {
		t.Errorf("edge of window: %v", err)
	}
}

func TestParseCredentials(t *testing.T) {
	cases := []struct {
		name, key, secret, pass string
		ok                      bool
	}{
		{"valid", testAPIKey, testSecretURL, testPassphrase, true},
		{"upper-case key, whitespace", " " + strings.ToUpper(testAPIKey) + "\n", testSecretStd + "\n", strings.ToUpper(testPassphrase), true},
		{"unpadded secret", testAPIKey, strings.TrimRight(testSecretURL, "="), testPassphrase, true},
		{"key not a uuid", "abc", testSecretURL, testPassphrase, false},
		{"key in braces", "{" + testAPIKey + "}", testSecretURL, testPassphrase, false},
		{"key without dashes", strings.ReplaceAll(testAPIKey, "-", ""), testSecretURL, testPassphrase, false},
		{"empty secret", testAPIKey, "", testPassphrase, false},
		{"secret not base64", testAPIKey, "not*base64!", testPassphrase, false},
		{"short passphrase", testAPIKey, testSecretURL, testPassphrase[:63], false},
		{"passphrase not hex", testAPIKey, testSecretURL, strings.Repeat("g", 64), false},
	}
	for _, c := range cases {
		_, err := ParseCredentials(c.key, secret.New(c.secret), secret.New(c.pass))
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v", c.name, err)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidCredentials) {
				t.Errorf("%s: %v is not ErrInvalidCredentials", c.name, err)
			}
			for _, s := range []string{c.secret, c.pass} {
				if len(s) > 8 && strings.Contains(err.Error(), strings.TrimSpace(s)) {
					t.Errorf("%s: error quotes a secret: %v", c.name, err)
				}
			}
		}
	}
}

func TestGenerateCredentials(t *testing.T) {
	r := bytes.NewReader(bytes.Repeat([]byte{0x5a, 0xc3, 0x01}, 100))
	c, err := GenerateCredentials(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCredentials(c.APIKey, c.Secret, c.Passphrase); err != nil {
		t.Fatalf("generated credentials do not parse: %v", err)
	}
	if len(c.Passphrase.Reveal()) != 64 || c.Passphrase.Reveal() != strings.ToLower(c.Passphrase.Reveal()) {
		t.Fatalf("passphrase form")
	}
	if _, err := GenerateCredentials(strings.NewReader("short")); err == nil {
		t.Fatal("GenerateCredentials with a short reader succeeded")
	}
}

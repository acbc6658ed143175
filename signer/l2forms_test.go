package signer

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// SVC_SIGNATURE in every form a client sends it: the spec's hex (ours) and
// the official client's base64url with padding, and the other base64
// spellings. Each is verified: the same form of another HMAC is refused.
func TestVerifyL2SignatureForms(t *testing.T) {
	now := time.Unix(1_750_000_000, 0)
	addr := testKey(t, "owner").Address()
	lookup := func(k string) (Credentials, string, bool) { return testCreds(t), addr, k == testAPIKey }
	l, err := NewL2(testCreds(t), addr, fixedClock(now))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`[{"deferExec":false,"order":{"salt":1}}]`)
	good, _ := l.AuthHeaders("POST", "/orders", body)
	mac, err := hex.DecodeString(header(good, exchange.HeaderSignature))
	if err != nil || len(mac) != 32 {
		t.Fatalf("our signature is not 32 bytes of hex: %v", err)
	}
	wrong := append([]byte(nil), mac...)
	wrong[7] ^= 1
	forms := []struct {
		name string
		enc  func([]byte) string
	}{
		{"hex", hex.EncodeToString},
		{"upper-case hex", func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }},
		{"base64url with padding (official client)", base64.URLEncoding.EncodeToString},
		{"base64url without padding", base64.RawURLEncoding.EncodeToString},
		{"standard base64", base64.StdEncoding.EncodeToString},
		{"standard base64 without padding", base64.RawStdEncoding.EncodeToString},
	}
	with := func(sig string) http.Header {
		h := http.Header{}
		for k, v := range good {
			h[k] = v
		}
		h[exchange.HeaderSignature] = []string{sig}
		return h
	}
	for _, f := range forms {
		if _, err := VerifyL2(with(f.enc(mac)), "POST", "/orders", body, lookup, now, DefaultFreshness); err != nil {
			t.Errorf("%s of the right HMAC: %v", f.name, err)
		}
		if _, err := VerifyL2(with(f.enc(wrong)), "POST", "/orders", body, lookup, now, DefaultFreshness); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s of a wrong HMAC: %v, want ErrBadSignature", f.name, err)
		}
	}
	for _, bad := range []string{
		base64.URLEncoding.EncodeToString(mac[:31]),         // too short
		base64.URLEncoding.EncodeToString(append(mac, 0)),   // too long
		base64.URLEncoding.EncodeToString(mac)[:43] + "==",  // bad padding
		"~" + base64.RawURLEncoding.EncodeToString(mac)[1:], // not base64
	} {
		if _, err := VerifyL2(with(bad), "POST", "/orders", body, lookup, now, DefaultFreshness); !errors.Is(err, ErrMalformedHeader) {
			t.Errorf("%q: %v, want ErrMalformedHeader", bad, err)
		}
	}
}

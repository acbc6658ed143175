package signer

import (
	"crypto/hmac"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// DefaultFreshness is the accepted difference between SVC_TIMESTAMP and the
// server's clock (DESIGN.md §4).
const DefaultFreshness = 30 * time.Second

// header reads a header by its exact spec name or its canonical form.
func header(h http.Header, name string) string {
	if v := h.Get(name); v != "" {
		return v
	}
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// VerifyL2 is the server side of L2: it checks the five SVC_ headers of a
// request against the credentials and address that lookup returns for the
// API key, and that the timestamp is within window of now. It returns the
// API key. Each failure wraps its own sentinel: ErrMissingHeader,
// ErrMalformedHeader, ErrUnknownAPIKey, ErrBadPassphrase, ErrAddressMismatch,
// ErrStaleTimestamp or ErrBadSignature. Secrets are compared in constant
// time and never appear in an error.
func VerifyL2(h http.Header, method, path string, body []byte, lookup func(apiKey string) (Credentials, string, bool), now time.Time, window time.Duration) (string, error) {
	names := []string{exchange.HeaderAddress, exchange.HeaderAPIKey, exchange.HeaderPassphrase, exchange.HeaderTimestamp, exchange.HeaderSignature}
	var vals [5]string
	for i, n := range names {
		if vals[i] = header(h, n); vals[i] == "" {
			return "", fmt.Errorf("%w: %s", ErrMissingHeader, n)
		}
	}
	address, apiKey, passphrase, timestamp, signature := vals[0], vals[1], vals[2], vals[3], vals[4]

	creds, wantAddr, ok := lookup(apiKey)
	if !ok {
		return "", ErrUnknownAPIKey
	}
	if subtle.ConstantTimeCompare([]byte(passphrase), []byte(creds.Passphrase.Reveal())) != 1 {
		return "", ErrBadPassphrase
	}
	want, err := parseAddress(wantAddr)
	if err != nil {
		return "", fmt.Errorf("%w: the key's address does not parse: %w", ErrAddressMismatch, err)
	}
	if address != want.Hex() {
		return "", fmt.Errorf("%w: %s is not the key's checksummed address", ErrAddressMismatch, address)
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return "", fmt.Errorf("%w: %s is not integer seconds", ErrMalformedHeader, exchange.HeaderTimestamp)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > window || d < -window {
		return "", fmt.Errorf("%w: %s off by %s, window %s", ErrStaleTimestamp, exchange.HeaderTimestamp, d.Truncate(time.Second), window)
	}
	got, err := hex.DecodeString(signature)
	if err != nil {
		return "", fmt.Errorf("%w: %s is not hex", ErrMalformedHeader, exchange.HeaderSignature)
	}
	key, err := decodeSecret(creds.Secret.Reveal())
	if err != nil {
		return "", err
	}
	wantSig, _ := hex.DecodeString(l2Signature(key, timestamp, method, path, body))
	if !hmac.Equal(got, wantSig) {
		return "", ErrBadSignature
	}
	return apiKey, nil
}

package signer

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
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
// time and never appear in an error. SVC_SIGNATURE may be hex or base64url
// (DecodeL2Signature): either way the HMAC is checked.
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
	if err := checkFresh(ts, now, window); err != nil {
		return "", err
	}
	got, err := DecodeL2Signature(signature)
	if err != nil {
		return "", err
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

// DecodeL2Signature reads an SVC_SIGNATURE in the form the spec gives
// (hex, as this project's client sends it) or in the form the official
// client libraries send and the live exchange accepts: the HMAC-SHA256 in
// base64url, with its "=" padding (unpadded and standard base64 are taken
// too). A base64 value must hold exactly the 32 bytes of an HMAC-SHA256.
// The two forms cannot be confused: 32 bytes in base64 are 43 or 44
// characters, with a character or a padding that hex does not have. A
// value in neither form wraps ErrMalformedHeader.
func DecodeL2Signature(s string) ([]byte, error) {
	if b, err := hex.DecodeString(s); err == nil {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.URLEncoding, base64.RawURLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.Strict().DecodeString(s); err == nil && len(b) == sha256.Size {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: %s is neither hex nor the base64url of an HMAC-SHA256", ErrMalformedHeader, exchange.HeaderSignature)
}

// maxDurationSecs is the most whole seconds a time.Duration holds.
const maxDurationSecs = int64(math.MaxInt64 / time.Second)

// checkFresh refuses a timestamp (Unix seconds) more than window from now.
// The error says how far and which way, exactly (no saturation however far
// off), and names a timestamp that reads as Unix milliseconds.
func checkFresh(ts int64, now time.Time, window time.Duration) error {
	nowS := now.Unix()
	near := ts > nowS-maxDurationSecs/2 && ts < nowS+maxDurationSecs/2
	var ahead time.Duration // ts - now, when near
	if near {
		if ahead = time.Unix(ts, 0).Sub(now); ahead <= window && ahead >= -window {
			return nil
		}
	}
	if ms := ts / 1000; ts >= 1e11 && ms > nowS-maxDurationSecs/2 && ms < nowS+maxDurationSecs/2 {
		if d := time.UnixMilli(ts).Sub(now); d <= window && d >= -window {
			return fmt.Errorf("%w: %s %d is not in seconds (it reads as Unix milliseconds)", ErrStaleTimestamp, exchange.HeaderTimestamp, ts)
		}
	}
	var how string
	switch {
	case near && ahead > 0:
		how = ahead.Round(time.Millisecond).String() + " ahead of"
	case near:
		how = (-ahead).Round(time.Millisecond).String() + " behind"
	case ts > nowS: // the differences below cannot overflow in uint64
		how = strconv.FormatUint(uint64(ts)-uint64(nowS), 10) + "s ahead of"
	default:
		how = strconv.FormatUint(uint64(nowS)-uint64(ts), 10) + "s behind"
	}
	return fmt.Errorf("%w: %s %d is %s the server's clock, window %s", ErrStaleTimestamp, exchange.HeaderTimestamp, ts, how, window)
}

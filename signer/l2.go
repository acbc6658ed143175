package signer

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// L2 authenticates requests of one account with the five SVC_ headers
// (DESIGN.md §4). It implements exchange.Authenticator and is safe for
// concurrent use. Printing an L2 shows its API key and address only.
type L2 struct {
	apiKey     string
	passphrase string
	address    string
	key        []byte // the decoded HMAC secret
	now        func() time.Time
}

var _ exchange.Authenticator = (*L2)(nil)

// NewL2 returns the authenticator for creds and the account address (any
// case; sent checksummed). clock nil means time.Now.
func NewL2(creds Credentials, address string, clock func() time.Time) (*L2, error) {
	c, err := ParseCredentials(creds.APIKey, creds.Secret, creds.Passphrase)
	if err != nil {
		return nil, err
	}
	addr, err := parseAddress(address)
	if err != nil {
		return nil, fmt.Errorf("%w: address: %w", ErrInvalidCredentials, err)
	}
	key, err := decodeSecret(c.Secret.Reveal())
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = time.Now
	}
	return &L2{apiKey: c.APIKey, passphrase: c.Passphrase.Reveal(), address: addr.Hex(), key: key, now: clock}, nil
}

// l2Signature is the lowercase hex HMAC-SHA256, keyed by key, of
// timestamp + METHOD + path (query removed) + body.
func l2Signature(key []byte, timestamp, method, path string, body []byte) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	m := hmac.New(sha256.New, key)
	_, _ = io.WriteString(m, timestamp)
	_, _ = io.WriteString(m, strings.ToUpper(method))
	_, _ = io.WriteString(m, path)
	_, _ = m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// AuthHeaders returns the five SVC_ headers for a request. The header names
// are set exactly as the spec spells them (not canonicalised), so they go on
// the wire as SVC_ADDRESS and so on; copy them into a request with
// req.Header[k] = v.
func (l *L2) AuthHeaders(method, path string, body []byte) (http.Header, error) {
	if method == "" || !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("auth headers: want a method and an absolute path, got %q %q", method, path)
	}
	ts := strconv.FormatInt(l.now().Unix(), 10)
	return http.Header{
		exchange.HeaderAddress:    {l.address},
		exchange.HeaderAPIKey:     {l.apiKey},
		exchange.HeaderPassphrase: {l.passphrase},
		exchange.HeaderTimestamp:  {ts},
		exchange.HeaderSignature:  {l2Signature(l.key, ts, method, path, body)},
	}, nil
}

// Address is the checksummed address sent in SVC_ADDRESS.
func (l *L2) Address() string { return l.address }

// APIKey is the API key sent in SVC_API_KEY.
func (l *L2) APIKey() string { return l.apiKey }

func (l L2) redacted() string {
	return "signer.L2{api key " + l.apiKey + ", address " + l.address + ", secret [redacted]}"
}

// String implements fmt.Stringer.
func (l L2) String() string { return l.redacted() }

// GoString implements fmt.GoStringer.
func (l L2) GoString() string { return l.redacted() }

// Format implements fmt.Formatter: every verb prints the redacted form.
func (l L2) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, l.redacted()) }

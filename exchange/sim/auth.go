package sim

import (
	"errors"
	"net/http"

	"github.com/mmbot/mmbot/signer"
)

// authenticate verifies the five SVC_ headers of an authenticated request
// (path relative to the area, exact body) and returns the caller's
// account. The error text is what the 401 body says after "unauthorized: ".
func (e *Exchange) authenticate(r *http.Request, body []byte) (*account, error) {
	lookup := func(key string) (signer.Credentials, string, bool) {
		e.mu.Lock()
		defer e.mu.Unlock()
		a, ok := e.accts.byKey[key]
		if !ok || a.flow || a.revoked {
			return signer.Credentials{}, "", false
		}
		return signer.Credentials{APIKey: a.apiKey, Secret: a.secret, Passphrase: a.passphrase}, a.address, true
	}
	key, err := signer.VerifyL2(r.Header, r.Method, relPath(r), body, lookup, e.cfg.WallClock(), e.cfg.AuthWindow)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.accts.byKey[key], nil
}

// authMessage is the 401 body text for a verification failure.
func authMessage(err error) string {
	for _, m := range []struct {
		err error
		msg string
	}{
		{signer.ErrMissingHeader, "missing authentication header"},
		{signer.ErrMalformedHeader, "malformed authentication header"},
		{signer.ErrUnknownAPIKey, "invalid api key"},
		{signer.ErrBadPassphrase, "invalid passphrase"},
		{signer.ErrAddressMismatch, "address does not own the api key"},
		{signer.ErrStaleTimestamp, "timestamp outside the accepted window"},
		{signer.ErrBadSignature, "invalid request signature"},
	} {
		if errors.Is(err, m.err) {
			if m.err == signer.ErrMissingHeader || m.err == signer.ErrMalformedHeader || m.err == signer.ErrStaleTimestamp {
				return "unauthorized: " + err.Error()
			}
			return "unauthorized: " + m.msg
		}
	}
	return "unauthorized: authentication failed"
}

// unauthorized writes a 401.
func unauthorized(w http.ResponseWriter, err error) {
	clobError(w, http.StatusUnauthorized, authMessage(err))
}

// RevokeCredentials makes the exchange refuse the API key from now on, as
// an exchange does with a key revoked or rotated while its client runs:
// every authenticated call with it (POST /orders, DELETE /order, GET
// /data/order/{id}) is answered 401 "unauthorized: invalid api key". The
// account's orders and balances stay. It reports whether the key was one
// of the exchange's accounts.
func (e *Exchange) RevokeCredentials(apiKey string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	a, ok := e.accts.byKey[apiKey]
	if !ok || a.flow {
		return false
	}
	a.revoked = true
	return true
}

package assemble

import (
	"errors"
	"net/http"
	"strings"

	"github.com/mmbot/mmbot/strategy/loop"
)

// CredentialsHint is what to check when the exchange refuses the
// credentials of err (the account's settings, docs/configuration.md); a
// 403 may also mean that the host's address is not allowed.
func CredentialsHint(err error) string {
	h := "check account.api_key, the API secret and passphrase (account.api_secret_*, account.passphrase_*) " +
		"and that they belong to the signer's address (account.private_key_* or account.credentials_file)"
	var ce *loop.CredentialsError
	if errors.As(err, &ce) && ce.Status == http.StatusForbidden {
		h = "check that the exchange allows this host's IP address (its allowlist), then " + strings.TrimPrefix(h, "check ")
	}
	return h
}

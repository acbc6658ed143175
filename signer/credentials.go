package signer

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"
	"github.com/mmbot/mmbot/internal/secret"
)

// Credentials are the API credentials of an account: the API key (a UUID,
// not secret), the HMAC secret (base64url) and the passphrase (64 hex).
// Printing Credentials shows the key only.
type Credentials struct {
	APIKey     string
	Secret     secret.Value
	Passphrase secret.Value
}

// ParseCredentials validates the three values and returns them as
// Credentials. Surrounding whitespace is trimmed (credential files end with a
// newline). Errors name the field, never its value.
func ParseCredentials(apiKey string, secretB64, passphrase secret.Value) (Credentials, error) {
	apiKey = strings.TrimSpace(apiKey)
	if u, err := uuid.Parse(apiKey); err != nil || len(apiKey) != 36 || u.String() != strings.ToLower(apiKey) {
		return Credentials{}, fmt.Errorf("%w: API key is not a UUID", ErrInvalidCredentials)
	}
	sec := strings.TrimSpace(secretB64.Reveal())
	if _, err := decodeSecret(sec); err != nil {
		return Credentials{}, err
	}
	pass := strings.TrimSpace(passphrase.Reveal())
	if len(pass) != 64 {
		return Credentials{}, fmt.Errorf("%w: passphrase must be 64 hex digits, got %d characters", ErrInvalidCredentials, len(pass))
	}
	if _, err := hex.DecodeString(pass); err != nil {
		return Credentials{}, fmt.Errorf("%w: passphrase is not hex", ErrInvalidCredentials)
	}
	return Credentials{APIKey: apiKey, Secret: secret.New(sec), Passphrase: secret.New(pass)}, nil
}

// decodeSecret decodes the API secret: base64url, padded or not, or standard
// base64. An empty secret is invalid.
func decodeSecret(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.URLEncoding, base64.RawURLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) == 0 {
				break
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: secret is not non-empty base64url or base64", ErrInvalidCredentials)
}

// GenerateCredentials makes fresh credentials from rand: a random (version
// 4) UUID, a 32-byte secret in padded base64url and a 32-byte passphrase in
// lowercase hex. The simulated exchange uses it for its accounts.
func GenerateCredentials(rand io.Reader) (Credentials, error) {
	id, err := uuid.NewRandomFromReader(rand)
	if err != nil {
		return Credentials{}, fmt.Errorf("generate credentials: %w", err)
	}
	var sec, pass [32]byte
	defer clear(sec[:])
	defer clear(pass[:])
	if _, err := io.ReadFull(rand, sec[:]); err != nil {
		return Credentials{}, fmt.Errorf("generate credentials: %w", err)
	}
	if _, err := io.ReadFull(rand, pass[:]); err != nil {
		return Credentials{}, fmt.Errorf("generate credentials: %w", err)
	}
	return Credentials{
		APIKey:     id.String(),
		Secret:     secret.New(base64.URLEncoding.EncodeToString(sec[:])),
		Passphrase: secret.New(hex.EncodeToString(pass[:])),
	}, nil
}

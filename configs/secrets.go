package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmbot/mmbot/internal/secret"
)

// ErrNoSecret means none of a SecretRef's sources holds a value.
var ErrNoSecret = errors.New("no source holds the secret")

// SecretRef names where one secret is read from. Read tries, in order: the
// file, the systemd credential ($CREDENTIALS_DIRECTORY/<name>, when that
// variable is set and the file exists), the environment variable.
type SecretRef struct {
	What       string // for messages: "API secret", "passphrase"
	File       string
	Credential string
	Env        string
}

// APISecret is where the L2 API secret is read from.
func (a Account) APISecret() SecretRef {
	return SecretRef{What: "API secret", File: a.APISecretFile, Credential: a.APISecretCredential, Env: a.APISecretEnv}
}

// Passphrase is where the L2 passphrase is read from.
func (a Account) Passphrase() SecretRef {
	return SecretRef{What: "passphrase", File: a.PassphraseFile, Credential: a.PassphraseCredential, Env: a.PassphraseEnv}
}

// KeystorePassword is where the keystore password is read from.
func (a Account) KeystorePassword() SecretRef {
	return SecretRef{What: "keystore password", File: a.KeystorePasswordFile, Env: a.KeystorePasswordEnv}
}

// secretEnvNames are the variables the account names as secret sources;
// Load does not treat them as config keys.
func (a Account) secretEnvNames() []string {
	return []string{a.PrivateKeyEnv, a.APISecretEnv, a.PassphraseEnv, a.KeystorePasswordEnv}
}

// Read returns the secret from the first source that has one, with
// surrounding whitespace (a file's trailing newline) removed. Errors name
// the source, never the content.
func (r SecretRef) Read(getenv func(string) string) (secret.Value, error) {
	if r.File != "" {
		return readSecretFile(r.What, r.File)
	}
	if r.Credential != "" {
		if dir := getenv("CREDENTIALS_DIRECTORY"); dir != "" {
			p := filepath.Join(dir, r.Credential)
			if _, err := os.Stat(p); err == nil {
				return readSecretFile(r.What, p)
			}
		}
	}
	if r.Env != "" {
		if v := strings.TrimSpace(getenv(r.Env)); v != "" {
			return secret.New(v), nil
		}
	}
	return secret.Value{}, fmt.Errorf("%s: %w (file, systemd credential %q, variable %q)", r.What, ErrNoSecret, r.Credential, r.Env)
}

func readSecretFile(what, path string) (secret.Value, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		// The *PathError names the path and the cause, not the content.
		return secret.Value{}, fmt.Errorf("%s: %w", what, err)
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return secret.Value{}, fmt.Errorf("%s: file %s is empty", what, path)
	}
	return secret.New(v), nil
}

package signer

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmbot/mmbot/internal/secret"
)

// KeySource names where the private key is read from. There is
// deliberately no field for the key itself: a key is never a flag or a
// config value. LoadKey tries, in order:
//
//  1. File: a file holding the key as hex (warns when group/other can read it);
//  2. Keystore: a go-ethereum keystore file, with its password from
//     PasswordFile or else the variable PasswordEnv;
//  3. Credential: a systemd credential, $CREDENTIALS_DIRECTORY/<Credential>,
//     holding the key as hex, when that variable is set and the file exists;
//  4. Env: an environment variable holding the key as hex, when it is set.
//
// File and Keystore together are an error.
type KeySource struct {
	File         string
	Keystore     string
	PasswordFile string
	PasswordEnv  string
	Credential   string
	Env          string
}

// Default environment variables and credential name of the key sources.
const (
	EnvPrivateKey       = "MMBOT_PRIVATE_KEY"
	EnvPrivateKeyFile   = "MMBOT_PRIVATE_KEY_FILE"
	EnvKeystore         = "MMBOT_KEYSTORE"
	EnvKeystorePassword = "MMBOT_KEYSTORE_PASSWORD"
	EnvKeystorePassFile = "MMBOT_KEYSTORE_PASSWORD_FILE"
	DefaultCredential   = "mmbot-private-key"
)

// DefaultKeySource is the key source of commands that have no config file
// (mmbot order sign): the key file or keystore named by MMBOT_PRIVATE_KEY_FILE
// or MMBOT_KEYSTORE (password in MMBOT_KEYSTORE_PASSWORD_FILE or
// MMBOT_KEYSTORE_PASSWORD), else the systemd credential mmbot-private-key,
// else the key in MMBOT_PRIVATE_KEY.
func DefaultKeySource(getenv func(string) string) KeySource {
	return KeySource{
		File:         getenv(EnvPrivateKeyFile),
		Keystore:     getenv(EnvKeystore),
		PasswordFile: getenv(EnvKeystorePassFile),
		PasswordEnv:  EnvKeystorePassword,
		Credential:   DefaultCredential,
		Env:          EnvPrivateKey,
	}
}

// maxKeyFile bounds what LoadKey reads from a key, password or keystore file.
const maxKeyFile = 1 << 20

// LoadKey reads the key from src (see KeySource). getenv reads the
// environment (os.Getenv in production); warn, when not nil, receives
// warnings such as a key file readable by group or others. No error or
// warning contains key material.
func LoadKey(src KeySource, getenv func(string) string, warn func(string)) (*Key, error) {
	if warn == nil {
		warn = func(string) {}
	}
	if src.File != "" && src.Keystore != "" {
		return nil, fmt.Errorf("%w: both a key file and a keystore are set", ErrKeySource)
	}
	switch {
	case src.File != "":
		raw, err := readPrivateFile(src.File, "key file", warn)
		if err != nil {
			return nil, err
		}
		k, err := ParseKey(raw)
		if err != nil {
			return nil, fmt.Errorf("key file %s: %w", src.File, err)
		}
		return k, nil
	case src.Keystore != "":
		return loadKeystore(src, getenv, warn)
	}
	if src.Credential != "" {
		if dir := getenv("CREDENTIALS_DIRECTORY"); dir != "" {
			if strings.ContainsAny(src.Credential, `/\`) || src.Credential == "." || src.Credential == ".." {
				return nil, fmt.Errorf("%w: credential name %q is not a plain name", ErrKeySource, src.Credential)
			}
			p := filepath.Join(dir, src.Credential)
			if _, err := os.Stat(p); err == nil {
				// systemd owns the credential's permissions: no mode check.
				raw, err := readPrivateFile(p, "credential", nil)
				if err != nil {
					return nil, err
				}
				k, err := ParseKey(raw)
				if err != nil {
					return nil, fmt.Errorf("credential %s: %w", src.Credential, err)
				}
				return k, nil
			}
		}
	}
	if src.Env != "" {
		if v := getenv(src.Env); v != "" {
			k, err := ParseKey(secret.New(v))
			if err != nil {
				return nil, fmt.Errorf("variable %s: %w", src.Env, err)
			}
			return k, nil
		}
	}
	return nil, fmt.Errorf("%w: no private key found (key file, keystore, systemd credential %q, variable %q)", ErrKeySource, src.Credential, src.Env)
}

func loadKeystore(src KeySource, getenv func(string) string, warn func(string)) (*Key, error) {
	var pass secret.Value
	switch {
	case src.PasswordFile != "":
		p, err := readPrivateFile(src.PasswordFile, "keystore password file", warn)
		if err != nil {
			return nil, err
		}
		// A password file's line break is not part of the password.
		pass = secret.New(strings.TrimRight(p.Reveal(), "\r\n"))
	case src.PasswordEnv != "" && getenv(src.PasswordEnv) != "":
		pass = secret.New(getenv(src.PasswordEnv))
	default:
		return nil, fmt.Errorf("%w: keystore %s needs a password file or variable %q", ErrKeySource, src.Keystore, src.PasswordEnv)
	}
	js, err := readFile(src.Keystore, "keystore")
	if err != nil {
		return nil, err
	}
	k, err := DecryptKeystore(js, pass)
	if err != nil {
		return nil, fmt.Errorf("keystore %s: %w", src.Keystore, err)
	}
	return k, nil
}

// readPrivateFile reads a file that holds a secret and, when warn is not
// nil, warns if its mode lets group or others read it.
func readPrivateFile(path, what string, warn func(string)) (secret.Value, error) {
	if warn != nil {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			warn(fmt.Sprintf("%s %s has mode %04o: group or others can read it; chmod 600 it", what, path, fi.Mode().Perm()))
		}
	}
	b, err := readFile(path, what)
	if err != nil {
		return secret.Value{}, err
	}
	defer clear(b)
	return secret.New(string(b)), nil
}

// readFile reads at most maxKeyFile bytes. Its errors name the file and the
// cause (from the file system), never the content.
func readFile(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrKeySource, what, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		// A read error of an *os.File is a *fs.PathError: path and cause.
		return nil, fmt.Errorf("%w: %s: %w", ErrKeySource, what, err)
	}
	if len(b) > maxKeyFile {
		return nil, fmt.Errorf("%w: %s %s is larger than %d bytes", ErrKeySource, what, path, maxKeyFile)
	}
	return b, nil
}

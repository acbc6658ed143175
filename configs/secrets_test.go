package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretRefRead(t *testing.T) {
	dir := t.TempDir()
	credDir := filepath.Join(dir, "creds")
	if err := os.Mkdir(credDir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) string {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := write(filepath.Join(dir, "secret"), "from-file\n")
	empty := write(filepath.Join(dir, "empty"), " \n")
	write(filepath.Join(credDir, "cred"), "from-credential\n")
	env := map[string]string{"CREDENTIALS_DIRECTORY": credDir, "SECRET_VAR": " from-env "}
	getenv := func(k string) string { return env[k] }
	noCreds := func(k string) string {
		if k == "CREDENTIALS_DIRECTORY" {
			return ""
		}
		return env[k]
	}

	for _, tc := range []struct {
		name    string
		ref     SecretRef
		getenv  func(string) string
		want    string
		wantErr string
	}{
		{"file wins", SecretRef{File: file, Credential: "cred", Env: "SECRET_VAR"}, getenv, "from-file", ""},
		{"credential over env", SecretRef{Credential: "cred", Env: "SECRET_VAR"}, getenv, "from-credential", ""},
		{"absent credential falls to env", SecretRef{Credential: "other", Env: "SECRET_VAR"}, getenv, "from-env", ""},
		{"no credentials directory", SecretRef{Credential: "cred", Env: "SECRET_VAR"}, noCreds, "from-env", ""},
		{"nothing", SecretRef{What: "API secret", Credential: "other", Env: "UNSET"}, getenv, "", "API secret: no source holds the secret"},
		{"empty file", SecretRef{What: "passphrase", File: empty}, getenv, "", "is empty"},
		{"missing file", SecretRef{What: "passphrase", File: filepath.Join(dir, "absent")}, getenv, "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.ref.Read(tc.getenv)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				for _, s := range []string{"from-file", "from-env", "from-credential"} {
					if strings.Contains(err.Error(), s) {
						t.Errorf("error leaks a secret: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Reveal() != tc.want {
				t.Errorf("got %q, want %q", v.Reveal(), tc.want)
			}
			if s := fmt.Sprintf("%v %+v %#v %s", v, v, v, v); strings.Contains(s, tc.want) {
				t.Errorf("secret printed: %s", s)
			}
		})
	}
	if _, err := (SecretRef{}).Read(getenv); !errors.Is(err, ErrNoSecret) {
		t.Errorf("empty ref: %v", err)
	}
}

func TestAccountSecretRefs(t *testing.T) {
	a := Account{
		APISecretFile: "sf", APISecretCredential: "sc", APISecretEnv: "SE",
		PassphraseFile: "pf", PassphraseCredential: "pc", PassphraseEnv: "PE",
		KeystorePasswordFile: "kf", KeystorePasswordEnv: "KE",
	}
	for _, tc := range []struct {
		got, want SecretRef
	}{
		{a.APISecret(), SecretRef{What: "API secret", File: "sf", Credential: "sc", Env: "SE"}},
		{a.Passphrase(), SecretRef{What: "passphrase", File: "pf", Credential: "pc", Env: "PE"}},
		{a.KeystorePassword(), SecretRef{What: "keystore password", File: "kf", Env: "KE"}},
	} {
		if tc.got != tc.want {
			t.Errorf("got %+v, want %+v", tc.got, tc.want)
		}
	}
}

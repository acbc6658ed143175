package signer

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/internal/secret"
)

// Known key/address pairs: the first is the Web3 Secret Storage test vector
// (its documented address), the second the example account of the web3.js
// documentation.
var knownKeys = []struct{ key, addr string }{
	{"7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d", "0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b"},
	{"4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"},
}

func TestParseKey(t *testing.T) {
	for _, k := range knownKeys {
		for _, form := range []string{k.key, "0x" + k.key, "0X" + strings.ToUpper(k.key), "  0x" + k.key + "\n"} {
			key, err := ParseKey(secret.New(form))
			if err != nil {
				t.Fatalf("ParseKey: %v", err)
			}
			if key.Address() != k.addr {
				t.Fatalf("address %s, want %s", key.Address(), k.addr)
			}
			if key.Hex().Reveal() != "0x"+k.key {
				t.Fatalf("Hex does not round-trip")
			}
		}
	}
	bad := []string{
		"", "0x", "12", strings.Repeat("a", 63), strings.Repeat("a", 65), "0x" + strings.Repeat("g", 64),
		strings.Repeat("0", 64), // zero is not a valid scalar
		"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", // the curve order
	}
	for _, b := range bad {
		_, err := ParseKey(secret.New(b))
		if !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ParseKey(%q) = %v", b, err)
		}
		if err != nil && len(b) > 4 && strings.Contains(err.Error(), b[2:]) {
			t.Errorf("error quotes the input: %v", err)
		}
	}
}

func TestGenerateKey(t *testing.T) {
	k1, err := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := ParseKey(secret.New(strings.Repeat("01", 32)))
	if k1.Address() != k2.Address() {
		t.Fatal("GenerateKey does not use its reader")
	}
	// A reader of zeros (then of the curve order) never yields a scalar.
	if _, err := GenerateKey(bytes.NewReader(make([]byte, 32*16))); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("zero reader: %v", err)
	}
	if _, err := GenerateKey(strings.NewReader("short")); err == nil {
		t.Fatal("short reader accepted")
	}
}

func TestScryptRFC7914(t *testing.T) {
	// Test vectors of RFC 7914 §12 (also reproduced with Python's
	// hashlib.scrypt).
	cases := []struct {
		pass, salt string
		n, r, p    int
		want       string
	}{
		{"", "", 16, 1, 1, "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"},
		{"password", "NaCl", 1024, 8, 16, "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"},
		{"pleaseletmein", "SodiumChloride", 16384, 8, 1, "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"},
	}
	for _, c := range cases {
		got, err := scrypt([]byte(c.pass), []byte(c.salt), c.n, c.r, c.p, 64, keystoreMaxMem)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(got) != c.want {
			t.Errorf("scrypt(%q, %q, %d, %d, %d) = %x", c.pass, c.salt, c.n, c.r, c.p, got)
		}
	}
	for _, p := range [][3]int{{0, 1, 1}, {3, 1, 1}, {16, 0, 1}, {16, 1, 0}, {1 << 20, 8, 1}} {
		if _, err := scrypt(nil, nil, p[0], p[1], p[2], 32, 64<<20); err == nil {
			t.Errorf("scrypt accepted N=%d r=%d p=%d within 64 MiB", p[0], p[1], p[2])
		}
	}
}

func TestDecryptKeystore(t *testing.T) {
	cases := []struct {
		file, pass, key string
		heavy           bool
	}{
		{"keystore_pbkdf2.json", "testpassword", knownKeys[0].key, false},
		{"keystore_scrypt.json", "testpassword", knownKeys[0].key, true},
		{"keystore_31byte.json", "foo", "00fa7b3db73dc7dfdf8c5fbdb796d741e4488628c41fc4febd9160a866ba0f35", false},
		{"keystore_30byte.json", "foo", "000081c29e8142bb6a81bef5a92bda7a8328a5c85bb2f9542e76f9b0f94fc018", false},
	}
	for _, c := range cases {
		if c.heavy && (testing.Short() || raceEnabled) {
			continue
		}
		js, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		k, err := DecryptKeystore(js, secret.New(c.pass))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if k.Hex().Reveal() != "0x"+c.key {
			t.Errorf("%s: wrong key", c.file)
		}
		if _, err := DecryptKeystore(js, secret.New(c.pass+"x")); !errors.Is(err, ErrKeystore) {
			t.Errorf("%s: wrong password gave %v", c.file, err)
		}
	}
	js, _ := os.ReadFile(filepath.Join("testdata", "keystore_31byte.json"))
	mutations := map[string]func(string) string{
		"not json":       func(s string) string { return s[1:] },
		"version 2":      func(s string) string { return strings.Replace(s, `"version": 3`, `"version": 2`, 1) },
		"other cipher":   func(s string) string { return strings.Replace(s, "aes-128-ctr", "aes-128-cbc", 1) },
		"other kdf":      func(s string) string { return strings.Replace(s, `"scrypt"`, `"argon2"`, 1) },
		"huge N":         func(s string) string { return strings.Replace(s, `"n": 2`, `"n": 1073741824`, 1) },
		"short dklen":    func(s string) string { return strings.Replace(s, `"dklen": 32`, `"dklen": 16`, 1) },
		"bad iv":         func(s string) string { return strings.Replace(s, `"iv": "e0`, `"iv": "zz`, 1) },
		"changed cipher": func(s string) string { return strings.Replace(s, `"ciphertext": "95`, `"ciphertext": "96`, 1) },
		"changed mac":    func(s string) string { return strings.Replace(s, `"mac": "d5`, `"mac": "d6`, 1) },
		"foreign address": func(s string) string {
			return strings.Replace(s, `"version"`, `"address": "0x1111111111111111111111111111111111111111", "version"`, 1)
		},
	}
	for name, m := range mutations {
		if _, err := DecryptKeystore([]byte(m(string(js))), secret.New("foo")); !errors.Is(err, ErrKeystore) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// writeFile writes a file with the given mode (umask aside).
func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	credDir := t.TempDir()
	k0, k1 := knownKeys[0], knownKeys[1]
	privFile := writeFile(t, dir, "key", "0x"+k0.key+"\n", 0o600)
	openFile := writeFile(t, dir, "key-open", k1.key, 0o644)
	passFile := writeFile(t, dir, "pass", "foo\n", 0o600)
	badFile := writeFile(t, dir, "bad", "0xnotakey", 0o600)
	bigFile := writeFile(t, dir, "big", strings.Repeat("a", maxKeyFile+1), 0o600)
	writeFile(t, credDir, DefaultCredential, k1.key, 0o400)
	ks := filepath.Join("testdata", "keystore_31byte.json")
	env := map[string]string{
		EnvPrivateKey:           k0.key,
		"OTHER_KEY":             k1.key,
		EnvKeystorePassword:     "foo",
		"BAD_KEY":               "0xnotakey-secretish",
		"CREDENTIALS_DIRECTORY": credDir,
	}
	getenv := func(k string) string { return env[k] }
	noCreds := func(k string) string {
		if k == "CREDENTIALS_DIRECTORY" {
			return ""
		}
		return env[k]
	}
	cases := []struct {
		name   string
		src    KeySource
		getenv func(string) string
		addr   string
		warn   bool
		err    error
	}{
		{"file", KeySource{File: privFile, Env: EnvPrivateKey}, getenv, k0.addr, false, nil},
		{"open file warns", KeySource{File: openFile}, getenv, k1.addr, true, nil},
		{"env", KeySource{Env: EnvPrivateKey}, noCreds, k0.addr, false, nil},
		{"credential before env", KeySource{Credential: DefaultCredential, Env: EnvPrivateKey}, getenv, k1.addr, false, nil},
		{"missing credential falls back to env", KeySource{Credential: "absent", Env: EnvPrivateKey}, getenv, k0.addr, false, nil},
		{"keystore, password file", KeySource{Keystore: ks, PasswordFile: passFile}, getenv, "", false, nil},
		{"keystore, password env", KeySource{Keystore: ks, PasswordEnv: EnvKeystorePassword}, getenv, "", false, nil},
		{"keystore, wrong password", KeySource{Keystore: ks, PasswordEnv: "OTHER_KEY"}, getenv, "", false, ErrKeystore},
		{"keystore without password", KeySource{Keystore: ks, PasswordEnv: "UNSET"}, getenv, "", false, ErrKeySource},
		{"file and keystore", KeySource{File: privFile, Keystore: ks}, getenv, "", false, ErrKeySource},
		{"missing file", KeySource{File: filepath.Join(dir, "absent")}, getenv, "", false, ErrKeySource},
		{"file too big", KeySource{File: bigFile}, getenv, "", false, ErrKeySource},
		{"bad file", KeySource{File: badFile}, getenv, "", false, ErrInvalidKey},
		{"bad env", KeySource{Env: "BAD_KEY"}, noCreds, "", false, ErrInvalidKey},
		{"nothing set", KeySource{Env: "UNSET"}, noCreds, "", false, ErrKeySource},
		{"credential path", KeySource{Credential: "../key"}, getenv, "", false, ErrKeySource},
	}
	for _, c := range cases {
		var warnings []string
		k, err := LoadKey(c.src, c.getenv, func(s string) { warnings = append(warnings, s) })
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
			continue
		}
		if err != nil {
			for _, s := range []string{k0.key, k1.key, "notakey", "secretish"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%s: error quotes key material: %v", c.name, err)
				}
			}
			continue
		}
		if c.addr != "" && k.Address() != c.addr {
			t.Errorf("%s: address %s, want %s", c.name, k.Address(), c.addr)
		}
		if (len(warnings) > 0) != c.warn {
			t.Errorf("%s: warnings %q", c.name, warnings)
		}
		for _, w := range warnings {
			if !strings.Contains(w, "0644") || strings.Contains(w, k1.key) {
				t.Errorf("%s: warning %q", c.name, w)
			}
		}
	}
	// A nil warn func is allowed.
	if _, err := LoadKey(KeySource{File: openFile}, getenv, nil); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultKeySource(t *testing.T) {
	env := map[string]string{EnvPrivateKeyFile: "/k", EnvKeystore: "/ks", EnvKeystorePassFile: "/p"}
	got := DefaultKeySource(func(k string) string { return env[k] })
	want := KeySource{File: "/k", Keystore: "/ks", PasswordFile: "/p", PasswordEnv: EnvKeystorePassword, Credential: DefaultCredential, Env: EnvPrivateKey}
	if got != want {
		t.Fatalf("DefaultKeySource = %+v", got)
	}
}

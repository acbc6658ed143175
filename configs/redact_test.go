package configs

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

const (
	testKeyHex = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	testB64    = "Zm9vYmFyLXNlY3JldC1rZXktZm9yLXRlc3RzLW9ubHkx" // 44 base64url characters
	testUUID   = "2f7d1c3a-5b9e-4d21-8f60-0c4e9a7b3d15"
	testPass   = "Tr0ub4dor&3-horse!Battery"
)

// liveBase is a configuration against an exchange by URL (so that the URL
// rules run) that validates.
const liveBase = `
[exchange]
data_url = "http://127.0.0.1:8080/data"
catalog_url = "http://127.0.0.1:8080/catalog"
clob_url = "http://127.0.0.1:8080/clob"
[account]
credentials_file = "sim-creds.json"
[markets.auto]
enabled = true
`

// loadSet loads the minimal configuration with --set key=value applied and
// validated, and returns the error's text ("" when it loads).
func loadSet(t *testing.T, key, value string) string {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse([]string{"--set", key + "=" + value}); err != nil {
		t.Fatal(err)
	}
	c, err := loadBytes("t.toml", []byte(liveBase), LoadOptions{Flags: fs})
	if err == nil {
		err = c.Validate()
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// A secret given for the wrong key is never echoed, whatever the key and
// whatever the check that refuses it; the message still names the key and
// says what the value looks like.
func TestValidationNeverEchoesSecrets(t *testing.T) {
	for _, tc := range []struct {
		key, value, secret, looks string
	}{
		{"exchange.clob_url", "0x" + testKeyHex, testKeyHex, "private key"},
		{"exchange.clob_url", testKeyHex, testKeyHex, "private key"},
		{"exchange.data_url", "ftp://h/" + testKeyHex, testKeyHex, "private key"},
		{"exchange.exchange_address", "0x" + testKeyHex, testKeyHex, "private key"},
		{"log.level", testB64, testB64, "secret"},
		{"log.format", testUUID, testUUID, "token"},
		{"log.level", testPass, testPass, "passphrase"},
		{"risk.max_position", "0x" + testKeyHex, testKeyHex, "private key"},      // decimal
		{"exchange.max_batch", testKeyHex, testKeyHex, "private key"},            // integer
		{"strategy.cycle", testB64, testB64, "secret"},                           // duration
		{"exchange.embedded_sim", testPass, testPass, "passphrase"},              // bool
		{"markets.condition_ids", "0x01," + testKeyHex, testKeyHex, ""},          // a list
		{"0x" + testKeyHex, "1", testKeyHex, ""},                                 // the key itself
		{"exchange.limits.fill", testUUID, testUUID, "token"},                    // float
		{"strategy.bands.levels", "[{offset=\"" + testB64 + "\"}]", testB64, ""}, // inside a table
	} {
		t.Run(tc.key, func(t *testing.T) {
			msg := loadSet(t, tc.key, tc.value)
			if msg == "" {
				t.Fatalf("--set %s=%s was accepted", tc.key, tc.value)
			}
			if strings.Contains(msg, tc.secret) || strings.Contains(msg, tc.secret[:16]) {
				t.Errorf("the message echoes the secret: %s", msg)
			}
			if !strings.Contains(msg, "redacted") {
				t.Errorf("the message does not say a value was redacted: %s", msg)
			}
			if tc.looks != "" && !strings.Contains(msg, tc.looks) {
				t.Errorf("the message does not say the value looks like a %s: %s", tc.looks, msg)
			}
		})
	}
}

// Ordinary values are still echoed: a bad URL, a bad level, an address.
func TestValidationStillEchoesOrdinaryValues(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{"exchange.clob_url", "ftp://127.0.0.1:8080/clob"},
		{"log.level", "verbose"},
		{"exchange.exchange_address", "0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E0"},
		{"risk.max_position", "ten"},
		{"strategy.cycle", "fast"},
		{"markets.slugs", "will-the-summit-cancel-the-event-by-december-24,"},
	} {
		msg := loadSet(t, tc.key, tc.value)
		if msg == "" {
			continue // valid after all; nothing to echo
		}
		if !strings.Contains(msg, tc.value) && !strings.Contains(msg, fmt.Sprintf("%q", tc.value)) {
			t.Errorf("--set %s=%s: the message lost the value: %s", tc.key, tc.value, msg)
		}
	}
}

var hex64 = regexp.MustCompile(`[0-9a-fA-F]{64}`)

// FuzzNoPrivateKeyInErrors: a 64-hex value, put into any key in any shape
// (bare, 0x-prefixed, inside a URL, a list or a table, or as the key), never
// appears in a configuration error.
func FuzzNoPrivateKeyInErrors(f *testing.F) {
	keys := newSchema().order
	f.Add(uint(0), uint8(0), []byte{1, 2, 3})
	f.Add(uint(7), uint8(3), []byte("seed"))
	f.Fuzz(func(t *testing.T, ki uint, shape uint8, seed []byte) {
		hexs := fmt.Sprintf("%x", fmt.Sprintf("%064s", seed))[:64]
		if !hex64.MatchString(hexs) {
			t.Skip()
		}
		key := keys[ki%uint(len(keys))]
		value := []string{
			hexs, "0x" + hexs, "http://127.0.0.1/" + hexs, "a," + hexs, "[{offset=\"" + hexs + "\"}]",
			hexs + "s", "0X" + strings.ToUpper(hexs), " " + hexs + " ",
		}[int(shape)%8]
		if shape >= 8 && shape < 16 {
			key = "0x" + hexs
		}
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		RegisterFlags(fs)
		if err := fs.Parse([]string{"--set", key + "=" + value}); err != nil {
			return
		}
		env := []string{EnvName(key) + "=" + value}
		toml := []byte(liveBase + "\n" + key + " = \"" + value + "\"\n")
		for _, run := range []func() error{
			func() error { return loadAndValidate("t.toml", []byte(liveBase), LoadOptions{Flags: fs}) },
			func() error { return loadAndValidate("t.toml", []byte(liveBase), LoadOptions{Environ: env}) },
			func() error { return loadAndValidate("t.toml", toml, LoadOptions{}) },
		} {
			if err := run(); err != nil && hex64.MatchString(err.Error()) {
				t.Fatalf("--set %s=%s: the error shows the 64 hex digits: %v", key, value, err)
			}
		}
	})
}

func loadAndValidate(name string, b []byte, opts LoadOptions) error {
	c, err := loadBytes(name, b, opts)
	if err != nil {
		return err
	}
	return c.Validate()
}

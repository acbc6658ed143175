package signer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"
)

// TestNothingPrintsSecrets formats keys, credentials and authenticators
// through every path a log line or error could take and looks for the
// secret material in the output.
func TestNothingPrintsSecrets(t *testing.T) {
	k := testKey(t, "owner")
	keyHex := strings.TrimPrefix(k.Hex().Reveal(), "0x")
	creds := testCreds(t)
	l, err := NewL2(creds, k.Address(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := testSigner(t, DefaultConfig(), SigEOA)
	type holder struct {
		K  *Key
		KV Key
		C  Credentials
		L  *L2
		LV L2
		S  *Signer
		A  Account
	}
	h := holder{K: k, KV: *k, C: creds, L: l, LV: *l, S: s, A: testAccount(t, SigEOA)}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		outs = append(outs, fmt.Sprintf(verb, k), fmt.Sprintf(verb, *k), fmt.Sprintf(verb, h), fmt.Sprintf(verb, l), fmt.Sprintf(verb, creds), fmt.Sprintf(verb, s))
	}
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(js))
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	log.Info().Object("key", k).Interface("holder", h).Msgf("%v", h)
	outs = append(outs, buf.String())

	// secrets in every encoding a printer might use.
	secrets := []string{keyHex, strings.ToUpper(keyHex), testPassphrase, testSecretURL, testSecretStd,
		fmt.Sprintf("%x", l.key), fmt.Sprint(l.key), new(big.Int).SetBytes(crypto.FromECDSA(k.priv)).String()}
	for i, o := range outs {
		for _, sec := range secrets {
			if strings.Contains(o, sec) {
				t.Fatalf("output %d leaks secret material: %s", i, o)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(k), k.Address()) {
		t.Errorf("a key should print its address: %s", k)
	}
}

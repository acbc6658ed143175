package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// orderTestKey is a throwaway key (the example account of the web3.js
// documentation, address orderTestAddr).
const (
	orderTestKey  = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	orderTestAddr = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
	orderWallet   = "0x1111111111111111111111111111111111111111"
	orderToken    = "71321045679252212594626385532706912750332728571942532289631379312455583992563"
)

// runOrder runs "mmbot order ..." with the given environment and stdin and
// returns the exit status, stdout and stderr.
func runOrder(t *testing.T, vars map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		ctx: context.Background(), stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return vars[k] },
	}
	code := runMain(e, append([]string{"order"}, args...))
	return code, out.String(), errb.String()
}

var orderKeyEnv = map[string]string{"MMBOT_PRIVATE_KEY": "0x" + orderTestKey}

func signArgs(extra ...string) []string {
	return append([]string{"sign", "--token-id", orderToken, "--side", "BUY", "--price", "0.56", "--size", "21.04",
		"--tick", "0.01", "--min-size", "5", "--condition-id", "0xc0", "--owner", "2d3f0c7e-8a4b-4c1d-9e2f-0a1b2c3d4e5f"}, extra...)
}

func TestOrderSignReproducible(t *testing.T) {
	args := signArgs("--salt", "123456789", "--timestamp", "1750000000123")
	code1, out1, err1 := runOrder(t, orderKeyEnv, "", args...)
	code2, out2, err2 := runOrder(t, orderKeyEnv, "", args...)
	if code1 != 0 || code2 != 0 {
		t.Fatalf("exit %d/%d: %s %s", code1, code2, err1, err2)
	}
	if out1 != out2 || err1 != err2 {
		t.Fatalf("output differs between runs:\n%s\n%s", out1, out2)
	}
	var item exchange.PlacementItem
	dec := json.NewDecoder(strings.NewReader(out1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&item); err != nil {
		t.Fatalf("stdout is not a placement item: %v\n%s", err, out1)
	}
	o := item.Order
	want := exchange.SignedOrder{
		Salt: "123456789", Maker: orderTestAddr, Signer: orderTestAddr, TokenID: orderToken, ConditionID: "0xc0",
		MakerAmount: "11782400", TakerAmount: "21040000", Side: exchange.Buy, SignatureType: 0,
		Timestamp: "1750000000123", Metadata: "0x" + strings.Repeat("0", 64), Builder: "0x" + strings.Repeat("0", 64),
		Signature: o.Signature,
	}
	if o != want || len(o.Signature) != 132 || item.OrderType != exchange.GTC || item.Owner != "2d3f0c7e-8a4b-4c1d-9e2f-0a1b2c3d4e5f" {
		t.Fatalf("item = %+v", item)
	}
	if !strings.HasPrefix(err1, "order hash: 0x") || len(strings.TrimSpace(err1)) != len("order hash: 0x")+64 {
		t.Fatalf("stderr = %q", err1)
	}
	// Without --salt and --timestamp two runs differ (random salt).
	_, a, _ := runOrder(t, orderKeyEnv, "", signArgs()...)
	_, b, _ := runOrder(t, orderKeyEnv, "", signArgs()...)
	if a == b {
		t.Fatal("two unpinned runs gave the same order")
	}
}

func TestOrderSignVerifyRoundTrip(t *testing.T) {
	cases := []struct {
		name       string
		signFlags  []string
		verifyArgs []string
	}{
		{"eoa", nil, nil},
		{"eoa neg-risk", []string{"--neg-risk"}, []string{"--neg-risk"}},
		{"proxy", []string{"--signature-type", "1", "--wallet", orderWallet}, nil},
		{"safe", []string{"--signature-type", "2", "--wallet", orderWallet}, []string{"--wallet-owner", orderWallet + "=" + orderTestAddr}},
		{"deposit wallet", []string{"--signature-type", "3", "--wallet", orderWallet}, []string{"--wallet-owner", orderWallet + "=" + strings.ToLower(orderTestAddr)}},
		{"deposit wallet neg-risk sell", []string{"--signature-type", "3", "--wallet", orderWallet, "--neg-risk", "--side", "sell"}, []string{"--neg-risk", "--wallet-owner", orderWallet + "=" + orderTestAddr}},
		{"other chain", []string{"--chain-id", "80002"}, []string{"--chain-id", "80002"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runOrder(t, orderKeyEnv, "", signArgs(c.signFlags...)...)
			if code != 0 {
				t.Fatalf("sign exit %d: %s", code, errOut)
			}
			hash := strings.TrimSpace(strings.TrimPrefix(errOut, "order hash: "))
			code, vout, verr := runOrder(t, nil, out, append([]string{"verify"}, c.verifyArgs...)...)
			if code != 0 {
				t.Fatalf("verify exit %d: %s", code, verr)
			}
			if !strings.Contains(vout, "signed by "+orderTestAddr) || !strings.Contains(vout, "order hash: "+hash) {
				t.Fatalf("verify said %q (hash %s)", vout, hash)
			}
		})
	}
}

func TestOrderVerifyRejects(t *testing.T) {
	_, item, _ := runOrder(t, orderKeyEnv, "", signArgs("--salt", "1", "--timestamp", "2")...)
	_, wallet, _ := runOrder(t, orderKeyEnv, "", signArgs("--salt", "1", "--timestamp", "2", "--signature-type", "3", "--wallet", orderWallet)...)
	var parsed exchange.PlacementItem
	if err := json.Unmarshal([]byte(item), &parsed); err != nil {
		t.Fatal(err)
	}
	bare, _ := json.Marshal(parsed.Order)
	cases := []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"bare order accepted", string(bare), nil, 0, "signed by"},
		{"tampered amount", strings.Replace(item, `"11782400"`, `"11782401"`, 1), nil, 1, "does not match"},
		{"wrong exchange", item, []string{"--neg-risk"}, 1, "signed for the ordinary exchange"},
		{"wrong chain", item, []string{"--chain-id", "80002"}, 1, "signed for chain 137"},
		{"truncated signature", truncateSig(t, item), nil, 1, "malformed signature"},
		{"unknown wallet", wallet, nil, 1, "unknown wallet"},
		{"wallet owned by another", wallet, []string{"--wallet-owner", orderWallet + "=" + orderWallet}, 1, "does not own"},
		{"not json", "hello", nil, 1, "not a JSON object"},
		{"unknown field", strings.Replace(item, `"owner"`, `"extra": 1, "owner"`, 1), nil, 1, "unknown field"},
		{"bad wallet-owner flag", item, []string{"--wallet-owner", "nonsense"}, 2, "wallet=owner"},
		{"positional argument", item, []string{"extra"}, 2, "unexpected arguments"},
	}
	for _, c := range cases {
		code, out, errOut := runOrder(t, nil, c.stdin, append([]string{"verify"}, c.args...)...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%s: exit %d, output %q %q; want exit %d with %q", c.name, code, out, errOut, c.code, c.want)
		}
	}
}

func truncateSig(t *testing.T, item string) string {
	var it exchange.PlacementItem
	if err := json.Unmarshal([]byte(item), &it); err != nil {
		t.Fatal(err)
	}
	it.Order.Signature = it.Order.Signature[:len(it.Order.Signature)-2]
	b, _ := json.Marshal(it)
	return string(b)
}

func TestOrderSignErrors(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"no subcommand", orderKeyEnv, nil, 2, "sign or verify"},
		{"unknown subcommand", orderKeyEnv, []string{"frobnicate"}, 2, "unknown order subcommand"},
		{"help", orderKeyEnv, []string{"sign", "--help"}, 0, "--token-id"},
		{"missing token", orderKeyEnv, []string{"sign", "--side", "BUY", "--price", "0.5", "--size", "5", "--tick", "0.1"}, 2, "--token-id is required"},
		{"unknown flag", orderKeyEnv, signArgs("--private-key", "0x00"), 2, "unknown flag"},
		{"bad price", orderKeyEnv, signArgs("--price", "half"), 2, "not a decimal"},
		{"bad side", orderKeyEnv, signArgs("--side", "HOLD"), 2, "BUY or SELL"},
		{"bad order type", orderKeyEnv, signArgs("--order-type", "IOC"), 2, "GTC"},
		{"salt without timestamp", orderKeyEnv, signArgs("--salt", "5"), 2, "go together"},
		{"off tick", orderKeyEnv, signArgs("--price", "0.565"), 1, "tick grid"},
		{"below minimum", orderKeyEnv, signArgs("--size", "4.99"), 1, "minimum"},
		{"salt too big", orderKeyEnv, signArgs("--salt", "9007199254740992", "--timestamp", "1"), 1, "2^53"},
		{"type 3 without wallet", orderKeyEnv, signArgs("--signature-type", "3"), 1, "deposit wallet"},
		{"no key", nil, signArgs(), 1, "MMBOT_PRIVATE_KEY"},
		{"bad key", map[string]string{"MMBOT_PRIVATE_KEY": "0xdeadbeefdeadbeef"}, signArgs(), 1, "invalid private key"},
		{"missing key file", orderKeyEnv, signArgs("--key-file", "/nonexistent/key"), 1, "no such file"},
	}
	for _, c := range cases {
		code, out, errOut := runOrder(t, c.env, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", c.name, code, errOut, c.code, c.want)
		}
		if code != 0 && out != "" {
			t.Errorf("%s: failed but wrote stdout %q", c.name, out)
		}
		if strings.Contains(out+errOut, orderTestKey) || strings.Contains(out+errOut, "deadbeefdeadbeef") {
			t.Errorf("%s: output contains key material", c.name)
		}
	}
}

func TestOrderSignKeyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "key")
	if err := os.WriteFile(p, []byte(orderTestKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runOrder(t, nil, "", signArgs("--key-file", p)...)
	if code != 0 || !strings.Contains(out, orderTestAddr) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "chmod 600") {
		t.Fatalf("no permission warning: %q", errOut)
	}
	if strings.Contains(out+errOut, orderTestKey) {
		t.Fatal("output contains the key")
	}
}

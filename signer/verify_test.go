package signer

import (
	"errors"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// owners is the wallet-owner lookup of the tests: the deposit wallet and the
// funder belong to the "owner" test key.
func owners(t testing.TB) func(string) (string, bool) {
	owner := testKey(t, "owner").Address()
	return func(w string) (string, bool) {
		if w == testWallet || w == testFunder {
			return owner, true
		}
		return "", false
	}
}

func testVerifier(t testing.TB, cfg Config) *Verifier {
	t.Helper()
	v, err := NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSignVerifyRoundTrip(t *testing.T) {
	v := testVerifier(t, DefaultConfig())
	want := testKey(t, "owner").Address()
	for sigType := SigEOA; sigType <= SigDepositWallet; sigType++ {
		for _, negRisk := range []bool{false, true} {
			for _, side := range []exchange.Side{exchange.Buy, exchange.Sell} {
				req := testRequest(t, negRisk)
				req.Side = side
				so, err := testSigner(t, DefaultConfig(), sigType).Sign(req)
				if err != nil {
					t.Fatal(err)
				}
				got, err := v.VerifyOrder(so.Item.Order, negRisk, owners(t))
				if err != nil || got != want {
					t.Errorf("type %d neg-risk %v %s: %s, %v", sigType, negRisk, side, got, err)
				}
				if h, _ := v.OrderHash(so.Item.Order, negRisk); h != so.Hash {
					t.Errorf("type %d: verifier hash %s, signer hash %s", sigType, h, so.Hash)
				}
				// conditionId is not signed.
				o := so.Item.Order
				o.ConditionID = "0xother"
				if _, err := v.VerifyOrder(o, negRisk, owners(t)); err != nil {
					t.Errorf("type %d: conditionId change rejected: %v", sigType, err)
				}
			}
		}
	}
	// Types 1 and 2 verify without an owner lookup too.
	so, _ := testSigner(t, DefaultConfig(), SigSafe).Sign(testRequest(t, false))
	if got, err := v.VerifyOrder(so.Item.Order, false, nil); err != nil || got != want {
		t.Errorf("type 2 without lookup: %s %v", got, err)
	}
}

// tamperings change one signed field of a wire order.
var tamperings = []struct {
	field string
	f     func(o *exchange.SignedOrder)
}{
	{"salt", func(o *exchange.SignedOrder) { o.Salt += "1" }},
	{"tokenId", func(o *exchange.SignedOrder) { o.TokenID = "12345" }},
	{"makerAmount", func(o *exchange.SignedOrder) { o.MakerAmount = "11782401" }},
	{"takerAmount", func(o *exchange.SignedOrder) { o.TakerAmount = "1" }},
	{"side", func(o *exchange.SignedOrder) { o.Side = o.Side.Opposite() }},
	{"timestamp", func(o *exchange.SignedOrder) { o.Timestamp = "1" }},
	{"metadata", func(o *exchange.SignedOrder) { o.Metadata = "0x" + strings.Repeat("01", 32) }},
	{"builder", func(o *exchange.SignedOrder) { o.Builder = "0x" + strings.Repeat("02", 32) }},
}

func TestVerifyTamperedFields(t *testing.T) {
	v := testVerifier(t, DefaultConfig())
	for sigType := SigEOA; sigType <= SigDepositWallet; sigType++ {
		want := ErrSignatureMismatch
		if sigType == SigDepositWallet {
			want = ErrStructHashMismatch
		}
		so, err := testSigner(t, DefaultConfig(), sigType).Sign(testRequest(t, false))
		if err != nil {
			t.Fatal(err)
		}
		for _, tm := range tamperings {
			o := so.Item.Order
			tm.f(&o)
			if _, err := v.VerifyOrder(o, false, owners(t)); !errors.Is(err, want) {
				t.Errorf("type %d, %s changed: err = %v, want %v", sigType, tm.field, err, want)
			}
		}
	}
}

func TestVerifyFailures(t *testing.T) {
	cfg := DefaultConfig()
	v := testVerifier(t, cfg)
	amoy := cfg
	amoy.ChainID = 80002
	otherName := cfg
	otherName.DomainName = "Some Other Exchange"
	sign := func(c Config, sigType int, negRisk bool) exchange.SignedOrder {
		so, err := testSigner(t, c, sigType).Sign(testRequest(t, negRisk))
		if err != nil {
			t.Fatal(err)
		}
		return so.Item.Order
	}
	mod := func(o exchange.SignedOrder, f func(*exchange.SignedOrder)) exchange.SignedOrder {
		f(&o)
		return o
	}
	eoa, wallet, proxy := sign(cfg, SigEOA, false), sign(cfg, SigDepositWallet, false), sign(cfg, SigProxy, false)
	strangers := func(string) (string, bool) { return testKey(t, "stranger").Address(), true }
	nobody := func(string) (string, bool) { return "", false }
	cases := []struct {
		name    string
		o       exchange.SignedOrder
		negRisk bool
		owners  func(string) (string, bool)
		err     error
	}{
		{"type 0 signed for neg-risk, checked as ordinary", sign(cfg, SigEOA, true), false, nil, ErrDomainMismatch},
		{"type 0 signed for ordinary, checked as neg-risk", eoa, true, nil, ErrDomainMismatch},
		{"type 0 signed on another chain", sign(amoy, SigEOA, false), false, nil, ErrChainMismatch},
		{"type 0 signed on another chain for neg-risk", sign(amoy, SigEOA, true), false, nil, ErrChainMismatch},
		{"type 0 signed under another domain name", sign(otherName, SigEOA, false), false, nil, ErrSignatureMismatch},
		{"type 0 another key", mod(eoa, func(o *exchange.SignedOrder) {
			o.Maker, o.Signer = testKey(t, "stranger").Address(), testKey(t, "stranger").Address()
		}), false, nil, ErrSignatureMismatch},
		{"type 0 maker differs from signer", mod(eoa, func(o *exchange.SignedOrder) { o.Maker = testWallet }), false, nil, ErrInvalidOrder},
		{"type 0 truncated signature", mod(eoa, func(o *exchange.SignedOrder) { o.Signature = o.Signature[:len(o.Signature)-2] }), false, nil, ErrMalformedSignature},
		{"type 0 odd-length signature", mod(eoa, func(o *exchange.SignedOrder) { o.Signature = o.Signature[:len(o.Signature)-1] }), false, nil, ErrMalformedSignature},
		{"type 0 empty signature", mod(eoa, func(o *exchange.SignedOrder) { o.Signature = "" }), false, nil, ErrMalformedSignature},
		{"type 0 signature not hex", mod(eoa, func(o *exchange.SignedOrder) { o.Signature = "0x" + strings.Repeat("zz", 65) }), false, nil, ErrMalformedSignature},
		{"type 0 v = 0", mod(eoa, func(o *exchange.SignedOrder) { o.Signature = withV(o.Signature, 0) }), false, nil, ErrMalformedSignature},
		{"type 0 v = 29", mod(eoa, func(o *exchange.SignedOrder) { o.Signature = withV(o.Signature, 29) }), false, nil, ErrMalformedSignature},
		{"type 0 high s", mod(eoa, func(o *exchange.SignedOrder) { o.Signature = highS(t, o.Signature) }), false, nil, ErrMalformedSignature},
		{"type 0 as type 3", mod(eoa, func(o *exchange.SignedOrder) { o.SignatureType = 3 }), false, owners(t), ErrMalformedSignature},
		{"type 5", mod(eoa, func(o *exchange.SignedOrder) { o.SignatureType = 5 }), false, nil, ErrInvalidOrder},
		{"bad side", mod(eoa, func(o *exchange.SignedOrder) { o.Side = "buy" }), false, nil, ErrInvalidOrder},
		{"amount with a sign", mod(eoa, func(o *exchange.SignedOrder) { o.MakerAmount = "+11782400" }), false, nil, ErrInvalidOrder},
		{"salt above 2^256", mod(eoa, func(o *exchange.SignedOrder) { o.Salt = "1" + strings.Repeat("0", 80) }), false, nil, ErrInvalidOrder},
		{"metadata short", mod(eoa, func(o *exchange.SignedOrder) { o.Metadata = "0x00" }), false, nil, ErrInvalidOrder},
		{"builder empty", mod(eoa, func(o *exchange.SignedOrder) { o.Builder = "" }), false, nil, ErrInvalidOrder},
		{"signer bad checksum", mod(eoa, func(o *exchange.SignedOrder) { o.Signer = flipCase(o.Signer) }), false, nil, ErrInvalidOrder},

		{"type 1 funder owned by another key", proxy, false, strangers, ErrWrongSigner},
		{"type 1 signed for neg-risk", sign(cfg, SigProxy, true), false, nil, ErrDomainMismatch},

		{"type 3 signed for neg-risk, checked as ordinary", sign(cfg, SigDepositWallet, true), false, owners(t), ErrDomainMismatch},
		{"type 3 signed on another chain", sign(amoy, SigDepositWallet, false), false, owners(t), ErrChainMismatch},
		{"type 3 signed under another domain name", sign(otherName, SigDepositWallet, false), false, owners(t), ErrDomainMismatch},
		{"type 3 unknown wallet", wallet, false, nobody, ErrUnknownWallet},
		{"type 3 no lookup", wallet, false, nil, ErrUnknownWallet},
		{"type 3 wallet owned by another key", wallet, false, strangers, ErrWrongSigner},
		{"type 3 owner not an address", wallet, false, func(string) (string, bool) { return "nope", true }, ErrUnknownWallet},
		{"type 3 maker differs from signer", mod(wallet, func(o *exchange.SignedOrder) { o.Maker = testFunder }), false, owners(t), ErrInvalidOrder},
		{"type 3 truncated signature", mod(wallet, func(o *exchange.SignedOrder) { o.Signature = o.Signature[:len(o.Signature)-2] }), false, owners(t), ErrMalformedSignature},
		{"type 3 bare 65-byte signature", mod(wallet, func(o *exchange.SignedOrder) { o.Signature = o.Signature[:2+130] }), false, owners(t), ErrMalformedSignature},
		{"type 3 other contents type", mod(wallet, func(o *exchange.SignedOrder) { o.Signature = replaceTypeString(t, o.Signature) }), false, owners(t), ErrTypeMismatch},
		{"type 3 inner signature changed", mod(wallet, func(o *exchange.SignedOrder) { o.Signature = flipHexDigit(o.Signature, 10) }), false, owners(t), ErrWrongSigner},
		{"type 3 inner v = 30", mod(wallet, func(o *exchange.SignedOrder) { o.Signature = withV(o.Signature, 30) }), false, owners(t), ErrMalformedSignature},
		{"type 3 as type 0", mod(wallet, func(o *exchange.SignedOrder) { o.SignatureType = 0 }), false, nil, ErrMalformedSignature},
	}
	for _, c := range cases {
		if _, err := v.VerifyOrder(c.o, c.negRisk, c.owners); !errors.Is(err, c.err) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
		}
	}
}

// withV sets byte 64 (v of a plain or inner signature) of a hex signature.
func withV(sig string, v byte) string {
	b, _ := decodeHex0x(sig)
	b[64] = v
	return hex0x(b)
}

// highS replaces s by n - s and flips v: the same signature in its
// malleable high-s form.
func highS(t *testing.T, sig string) string {
	b, _ := decodeHex0x(sig)
	n, _ := parseDecimal("115792089237316195423570985008687907852837564279074904382605163141518161494337")
	var s, hs = n, n
	s.SetBytes(b[32:64])
	hs.Sub(&n, &s)
	hs.PutUint256(b[32:64])
	b[64] ^= 1 // 27 <-> 28
	return hex0x(b)
}

func flipCase(addr string) string {
	r := []byte(addr)
	for i := 2; i < len(r); i++ {
		if r[i] >= 'a' && r[i] <= 'f' {
			r[i] -= 'a' - 'A'
			return string(r)
		}
		if r[i] >= 'A' && r[i] <= 'F' {
			r[i] += 'a' - 'A'
			return string(r)
		}
	}
	return addr
}

func flipHexDigit(s string, i int) string {
	r := []byte(s)
	if r[i] == '0' {
		r[i] = '1'
	} else {
		r[i] = '0'
	}
	return string(r)
}

// replaceTypeString swaps the embedded contents type for one of the same
// length with another name.
func replaceTypeString(t *testing.T, sig string) string {
	b, _ := decodeHex0x(sig)
	w, ok := unwrapSignature(b)
	if !ok {
		t.Fatal("not a wrapper")
	}
	return hex0x(wrapSignature(w.inner, w.separator, w.structHash)[:wrapFixedLen]) +
		strings.TrimPrefix(hex0x([]byte("Xrder"+OrderType[5:])), "0x") + sig[len(sig)-4:]
}

func TestVerifierConfig(t *testing.T) {
	bad := DefaultConfig()
	bad.NegRiskExchange = ""
	if _, err := NewVerifier(bad); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("NewVerifier(bad) = %v", err)
	}
	if _, err := OrderHash(exchange.SignedOrder{}, false, bad); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("OrderHash(bad config) = %v", err)
	}
	if _, err := OrderHash(exchange.SignedOrder{}, false, DefaultConfig()); !errors.Is(err, ErrInvalidOrder) {
		t.Fatalf("OrderHash(empty order) = %v", err)
	}
	// Without diagnostic chains another chain is a plain mismatch.
	amoy := DefaultConfig()
	amoy.ChainID = 80002
	so, _ := testSigner(t, amoy, SigEOA).Sign(testRequest(t, false))
	v, err := NewVerifier(DefaultConfig(), WithDiagnosticChains())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.VerifyOrder(so.Item.Order, false, nil); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("no diagnostic chains: %v", err)
	}
}

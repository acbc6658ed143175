package signer

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// BenchmarkCryptoSign is the baseline of DESIGN.md §5: go-ethereum's bare
// crypto.Sign on the digest of the order that BenchmarkSign signs.
func BenchmarkCryptoSign(b *testing.B) {
	s := testSigner(b, DefaultConfig(), SigEOA)
	so, err := s.SignWith(testRequest(b, false), 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	digest, _ := decodeHex0x(so.Hash)
	priv := s.key.priv
	b.ReportAllocs()
	for b.Loop() {
		if _, err := crypto.Sign(digest, priv); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSign(b *testing.B, sigType int) {
	s, err := New(DefaultConfig(), testAccount(b, sigType)) // crypto/rand salts
	if err != nil {
		b.Fatal(err)
	}
	req := testRequest(b, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Sign(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSign builds and signs one order: amounts, salt, EIP-712 hash,
// secp256k1 signature and the wire strings.
func BenchmarkSign(b *testing.B) { benchSign(b, SigEOA) }

// BenchmarkSignDepositWallet is BenchmarkSign for signature type 3.
func BenchmarkSignDepositWallet(b *testing.B) { benchSign(b, SigDepositWallet) }

func benchVerify(b *testing.B, sigType int) {
	so, err := testSigner(b, DefaultConfig(), sigType).Sign(testRequest(b, false))
	if err != nil {
		b.Fatal(err)
	}
	v := testVerifier(b, DefaultConfig())
	own := owners(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.VerifyOrder(so.Item.Order, false, own); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify checks one type-0 order: parse, hash, recover.
func BenchmarkVerify(b *testing.B) { benchVerify(b, SigEOA) }

// BenchmarkVerifyDepositWallet checks one type-3 order.
func BenchmarkVerifyDepositWallet(b *testing.B) { benchVerify(b, SigDepositWallet) }

func BenchmarkAmounts(b *testing.B) {
	req := testRequest(b, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Amounts(req.Side, req.Price, req.Size, req.TickSize); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuthHeaders(b *testing.B) {
	l, err := NewL2(testCreds(b), testWallet, nil)
	if err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.AuthHeaders("POST", "/orders", body); err != nil {
			b.Fatal(err)
		}
	}
}

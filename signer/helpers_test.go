package signer

import (
	"bytes"
	"flag"
	goldenfile "github.com/mmbot/mmbot/internal/golden"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/secret"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testKey derives a fixed key from a label, so tests are reproducible and no
// key is written into the source.
func testKey(t testing.TB, label string) *Key {
	t.Helper()
	k, err := ParseKey(secret.New(hex0x(crypto.Keccak256([]byte("mmbot signer test key " + label)))))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

const (
	testWallet  = "0x1111111111111111111111111111111111111111"
	testFunder  = "0x2222222222222222222222222222222222222222"
	testOwner   = "2d3f0c7e-8a4b-4c1d-9e2f-0a1b2c3d4e5f"
	testBuilder = "0x00000000000000000000000000000000000000000000000000000000000000b1"
	testToken   = "71321045679252212594626385532706912750332728571942532289631379312455583992563"
	testCond    = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1"
)

// fixedClock is a clock that always says t.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

func testAccount(t testing.TB, sigType int) Account {
	a := Account{Key: testKey(t, "owner"), SignatureType: sigType, Owner: testOwner}
	switch sigType {
	case SigProxy, SigSafe:
		a.Wallet = testFunder
	case SigDepositWallet:
		a.Wallet = testWallet
	}
	return a
}

func testSigner(t testing.TB, cfg Config, sigType int) *Signer {
	t.Helper()
	s, err := New(cfg, testAccount(t, sigType), WithClock(fixedClock(time.UnixMilli(1_750_000_000_123))), WithRand(bytes.NewReader(bytes.Repeat([]byte{0xab}, 1<<16))))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testRequest(t testing.TB, negRisk bool) OrderRequest {
	return OrderRequest{
		TokenID: testToken, ConditionID: testCond, Side: exchange.Buy,
		Price: dec(t, "0.56"), Size: dec(t, "21.04"), TickSize: dec(t, "0.01"), MinSize: dec(t, "5"),
		NegRisk: negRisk, OrderType: exchange.GTC,
	}
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

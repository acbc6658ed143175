package signer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// TestPlacementItemGolden pins the wire JSON of a placement item, field for
// field, for every signature type and both exchanges.
func TestPlacementItemGolden(t *testing.T) {
	for sigType := SigEOA; sigType <= SigDepositWallet; sigType++ {
		for _, negRisk := range []bool{false, true} {
			name := fmt.Sprintf("placement_type%d", sigType)
			if negRisk {
				name += "_negrisk"
			}
			t.Run(name, func(t *testing.T) {
				acct := testAccount(t, sigType)
				acct.Builder = testBuilder
				s, err := New(DefaultConfig(), acct)
				if err != nil {
					t.Fatal(err)
				}
				so, err := s.SignWith(testRequest(t, negRisk), 123456789, 1_750_000_000_123)
				if err != nil {
					t.Fatal(err)
				}
				js, err := json.MarshalIndent(so.Item, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				js = append(js, '\n')
				golden(t, name+".json", js)

				// The hash is the order's EIP-712 digest, also computable
				// from the wire order alone.
				h, err := OrderHash(so.Item.Order, negRisk, DefaultConfig())
				if err != nil || h != so.Hash {
					t.Fatalf("OrderHash = %s, %v; Sign said %s", h, err, so.Hash)
				}
			})
		}
	}
}

// TestWireFields checks the JSON keys and value types of a placement item
// against the spec's table: every order field a string except signatureType.
func TestWireFields(t *testing.T) {
	so, err := testSigner(t, DefaultConfig(), SigEOA).SignWith(testRequest(t, false), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(so.Item)
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m["orderType"] != "GTC" || m["owner"] != testOwner {
		t.Fatalf("item = %v", m)
	}
	ord := m["order"].(map[string]any)
	want := []string{"tokenId", "conditionId", "maker", "signer", "makerAmount", "takerAmount", "side", "metadata", "salt", "signature", "timestamp", "builder", "signatureType"}
	if len(ord) != len(want) {
		t.Fatalf("order has %d fields, want %d: %v", len(ord), len(want), ord)
	}
	for _, k := range want {
		v, ok := ord[k]
		if !ok {
			t.Fatalf("order lacks %s", k)
		}
		_, isString := v.(string)
		if isString != (k != "signatureType") {
			t.Errorf("field %s has JSON type %T", k, v)
		}
	}
}

func TestSignUsesClockAndRand(t *testing.T) {
	s := testSigner(t, DefaultConfig(), SigEOA)
	so, err := s.Sign(testRequest(t, false))
	if err != nil {
		t.Fatal(err)
	}
	o := so.Item.Order
	// The fake rand yields 0xab bytes; the salt keeps the low 53 bits.
	if o.Salt != fmt.Sprint(uint64(0xabababababababab)&MaxSalt) || o.Timestamp != "1750000000123" {
		t.Fatalf("salt %s timestamp %s", o.Salt, o.Timestamp)
	}
	if o.MakerAmount != "11782400" || o.TakerAmount != "21040000" || o.Side != exchange.Buy {
		t.Fatalf("amounts %s/%s side %s", o.MakerAmount, o.TakerAmount, o.Side)
	}
	if o.Maker != s.Address() || o.Signer != s.Address() || strings.ToLower(o.Maker) == o.Maker {
		t.Fatalf("maker %s signer %s, key %s", o.Maker, o.Signer, s.Address())
	}
	again, err := s.SignWith(testRequest(t, false), 7, 8)
	if err != nil {
		t.Fatal(err)
	}
	same, _ := s.SignWith(testRequest(t, false), 7, 8)
	if again != same {
		t.Fatal("SignWith is not reproducible")
	}
}

func TestSignerAddresses(t *testing.T) {
	key := testKey(t, "owner").Address()
	cases := []struct {
		sigType       int
		maker, signer string
	}{
		{SigEOA, key, key},
		{SigProxy, testFunder, key},
		{SigSafe, testFunder, key},
		{SigDepositWallet, testWallet, testWallet},
	}
	for _, c := range cases {
		so, err := testSigner(t, DefaultConfig(), c.sigType).SignWith(testRequest(t, false), 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		o := so.Item.Order
		if o.Maker != c.maker || o.Signer != c.signer || o.SignatureType != c.sigType {
			t.Errorf("type %d: maker %s signer %s type %d", c.sigType, o.Maker, o.Signer, o.SignatureType)
		}
		wantLen := 2 + 2*sigLen
		if c.sigType == SigDepositWallet {
			wantLen = 2 + 2*(sigLen+64+len(OrderType)+2)
		}
		if len(o.Signature) != wantLen {
			t.Errorf("type %d: signature of %d characters, want %d", c.sigType, len(o.Signature), wantLen)
		}
	}
}

func TestNewRejects(t *testing.T) {
	k := testKey(t, "owner")
	bad := DefaultConfig()
	bad.Exchange = "0x123"
	cases := []struct {
		name string
		cfg  Config
		acct Account
		err  error
	}{
		{"no key", DefaultConfig(), Account{}, ErrInvalidAccount},
		{"bad config", bad, Account{Key: k}, ErrInvalidConfig},
		{"zero chain", Config{Exchange: DefaultExchange, NegRiskExchange: DefaultNegRiskExchange, DomainName: "x", DomainVersion: "1"}, Account{Key: k}, ErrInvalidConfig},
		{"empty name", Config{ChainID: 1, Exchange: DefaultExchange, NegRiskExchange: DefaultNegRiskExchange}, Account{Key: k}, ErrInvalidConfig},
		{"type 0 with a foreign wallet", DefaultConfig(), Account{Key: k, Wallet: testWallet}, ErrInvalidAccount},
		{"type 1 without funder", DefaultConfig(), Account{Key: k, SignatureType: 1}, ErrInvalidAccount},
		{"type 2 bad funder", DefaultConfig(), Account{Key: k, SignatureType: 2, Wallet: "0xzz"}, ErrInvalidAccount},
		{"type 3 without wallet", DefaultConfig(), Account{Key: k, SignatureType: 3}, ErrInvalidAccount},
		{"type 4", DefaultConfig(), Account{Key: k, SignatureType: 4}, ErrInvalidAccount},
		{"bad builder", DefaultConfig(), Account{Key: k, Builder: "0x12"}, ErrInvalidAccount},
		{"bad metadata", DefaultConfig(), Account{Key: k, Metadata: "zz"}, ErrInvalidAccount},
		{"bad checksum", DefaultConfig(), Account{Key: k, SignatureType: 3, Wallet: "0xE111180000d2663C0091e4f400237545B87B996b"}, ErrInvalidAccount},
	}
	for _, c := range cases {
		if _, err := New(c.cfg, c.acct); !errors.Is(err, c.err) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
		}
	}
	// Type 0 accepts its own address as the wallet, in any case.
	if _, err := New(DefaultConfig(), Account{Key: k, Wallet: strings.ToLower(k.Address())}); err != nil {
		t.Errorf("type 0 with own address: %v", err)
	}
}

func TestSignRejects(t *testing.T) {
	s := testSigner(t, DefaultConfig(), SigEOA)
	mod := func(f func(*OrderRequest)) OrderRequest {
		r := testRequest(t, false)
		f(&r)
		return r
	}
	cases := []struct {
		name string
		req  OrderRequest
		salt uint64
		ts   int64
		err  error
	}{
		{"below minimum", mod(func(r *OrderRequest) { r.Size = dec(t, "4.99") }), 1, 1, ErrSizeTooSmall},
		{"size decimals", mod(func(r *OrderRequest) { r.Size = dec(t, "5.001") }), 1, 1, ErrSizePrecision},
		{"off tick", mod(func(r *OrderRequest) { r.Price = dec(t, "0.565") }), 1, 1, ErrPriceOffTick},
		{"out of range", mod(func(r *OrderRequest) { r.Price = dec(t, "0.999") }), 1, 1, ErrPriceOutOfRange},
		{"overflow", mod(func(r *OrderRequest) { r.Size = dec(t, "1e18") }), 1, 1, ErrAmountOverflow},
		{"bad side", mod(func(r *OrderRequest) { r.Side = "" }), 1, 1, ErrInvalidSide},
		{"bad order type", mod(func(r *OrderRequest) { r.OrderType = "IOC" }), 1, 1, ErrInvalidOrder},
		{"bad token", mod(func(r *OrderRequest) { r.TokenID = "0x12" }), 1, 1, ErrInvalidOrder},
		{"token leading zero", mod(func(r *OrderRequest) { r.TokenID = "012" }), 1, 1, ErrInvalidOrder},
		{"empty token", mod(func(r *OrderRequest) { r.TokenID = "" }), 1, 1, ErrInvalidOrder},
		{"salt too big", testRequest(t, false), MaxSalt + 1, 1, ErrInvalidOrder},
		{"negative timestamp", testRequest(t, false), 1, -1, ErrInvalidOrder},
	}
	for _, c := range cases {
		if _, err := s.SignWith(c.req, c.salt, c.ts); !errors.Is(err, c.err) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
		}
	}
	// An empty order type means GTC.
	so, err := s.SignWith(mod(func(r *OrderRequest) { r.OrderType = "" }), 1, 1)
	if err != nil || so.Item.OrderType != exchange.GTC {
		t.Fatalf("default order type: %v %v", so.Item.OrderType, err)
	}
}

func TestSignRandFailure(t *testing.T) {
	s, err := New(DefaultConfig(), testAccount(t, SigEOA), WithRand(strings.NewReader("short")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sign(testRequest(t, false)); err == nil {
		t.Fatal("Sign succeeded with a failing random source")
	}
}

// TestSignConcurrent signs from several goroutines with one Signer (run
// with -race) and checks that every salt is distinct.
func TestSignConcurrent(t *testing.T) {
	s, err := New(DefaultConfig(), testAccount(t, SigDepositWallet))
	if err != nil {
		t.Fatal(err)
	}
	v := testVerifier(t, DefaultConfig())
	const workers, each = 4, 8
	results := make(chan SignedOrder, workers*each)
	errs := make(chan error, workers*each)
	for range workers {
		go func() {
			for range each {
				so, err := s.Sign(testRequest(t, false))
				if err != nil {
					errs <- err
					continue
				}
				results <- so
			}
		}()
	}
	seen := map[string]bool{}
	for range workers * each {
		select {
		case err := <-errs:
			t.Fatal(err)
		case so := <-results:
			if seen[so.Item.Order.Salt] {
				t.Fatalf("salt %s repeated", so.Item.Order.Salt)
			}
			seen[so.Item.Order.Salt] = true
			if _, err := v.VerifyOrder(so.Item.Order, false, owners(t)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

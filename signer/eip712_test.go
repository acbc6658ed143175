package signer

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Constants cross-checked against this package's hand-rolled ABI encoding.
// Each was computed once with go-ethereum's signer/core/apitypes.TypedData
// (TypeHash and HashStruct over the types below), an implementation that
// walks the type definitions by reflection and shares no code with
// eip712.go; TestApitypesAgrees recomputes them the same way on every run.
const (
	// apitypes TypeHash("Order").
	wantOrderTypeHash = "0xbb86318a2138f5fa8ae32fbe8e659f8fcf13cc6ae4014a707893055433818589"
	// apitypes TypeHash("EIP712Domain"); also the well-known EIP-712 constant.
	wantDomainTypeHash = "0x8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f"
	// apitypes TypeHash("TypedDataSign") with Order as the contents type.
	wantTypedDataSignTypeHash = "0x6ba028565cb324c2aa02bb714b9816d0bddd557a2f33bb36cf13272a4256bd42"
	// apitypes HashStruct("EIP712Domain") for DefaultConfig's exchange.
	wantExchangeSeparator = "0x3264e159346253e26a64e00b69032db0e7d32f94628de3e6eecb50304d7af3d2"
	// apitypes HashStruct("EIP712Domain") for DefaultConfig's neg-risk exchange.
	wantNegRiskSeparator = "0x9b858f53327b0bd13af8ec14cfb35234fb9eb7b0504d1a4e61f433840d30e81a"
)

func TestTypeHashesAndSeparators(t *testing.T) {
	d, err := newDomains(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		got  common.Hash
		want string
	}{
		{"order type hash", d.orderTypeHash, wantOrderTypeHash},
		{"domain type hash", crypto.Keccak256Hash([]byte(DomainType)), wantDomainTypeHash},
		{"TypedDataSign type hash", d.wrapTypeHash, wantTypedDataSignTypeHash},
		{"exchange separator", d.separator[0], wantExchangeSeparator},
		{"neg-risk separator", d.separator[1], wantNegRiskSeparator},
	}
	for _, c := range checks {
		if c.got.Hex() != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got.Hex(), c.want)
		}
	}
}

// apitypesTypes are the EIP-712 types of DESIGN.md §4, written out as
// go-ethereum's typed-data definitions.
func apitypesTypes() apitypes.Types {
	return apitypes.Types{
		"EIP712Domain": {
			{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
			{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
		},
		"Order": {
			{Name: "salt", Type: "uint256"}, {Name: "maker", Type: "address"}, {Name: "signer", Type: "address"},
			{Name: "tokenId", Type: "uint256"}, {Name: "makerAmount", Type: "uint256"}, {Name: "takerAmount", Type: "uint256"},
			{Name: "side", Type: "uint8"}, {Name: "signatureType", Type: "uint8"}, {Name: "timestamp", Type: "uint256"},
			{Name: "metadata", Type: "bytes32"}, {Name: "builder", Type: "bytes32"},
		},
		"TypedDataSign": {
			{Name: "contents", Type: "Order"}, {Name: "name", Type: "string"}, {Name: "version", Type: "string"},
			{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}, {Name: "salt", Type: "bytes32"},
		},
	}
}

func apitypesDomain(cfg Config, negRisk bool) apitypes.TypedDataDomain {
	vc := cfg.Exchange
	if negRisk {
		vc = cfg.NegRiskExchange
	}
	return apitypes.TypedDataDomain{
		Name: cfg.DomainName, Version: cfg.DomainVersion,
		ChainId: math.NewHexOrDecimal256(cfg.ChainID), VerifyingContract: vc,
	}
}

func apitypesMessage(o *order) apitypes.TypedDataMessage {
	return apitypes.TypedDataMessage{
		"salt": o.salt.Dec(), "maker": o.maker.Hex(), "signer": o.signer.Hex(),
		"tokenId": o.tokenID.Dec(), "makerAmount": o.makerAmount.Dec(), "takerAmount": o.takerAmount.Dec(),
		"side": strconv.Itoa(int(o.side)), "signatureType": strconv.Itoa(int(o.sigType)),
		"timestamp": o.timestamp.Dec(), "metadata": o.metadata.Hex(), "builder": o.builder.Hex(),
	}
}

func randomOrder(r *rand.Rand) *order {
	var o order
	fill := func(b []byte) {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
	var w [32]byte
	fill(w[:])
	o.salt.SetBytes(w[:7])
	fill(o.maker[:])
	fill(o.signer[:])
	fill(w[:])
	o.tokenID.SetBytes32(w[:])
	o.makerAmount.SetUint64(r.Uint64() >> 1)
	o.takerAmount.SetUint64(r.Uint64() >> 1)
	o.side = uint8(r.IntN(2))
	o.sigType = uint8(r.IntN(4))
	o.timestamp.SetUint64(r.Uint64() >> 20)
	if r.IntN(2) == 0 {
		fill(o.metadata[:])
		fill(o.builder[:])
	}
	return &o
}

// TestApitypesAgrees recomputes type hashes, domain separators, order
// digests and type-3 wrapper digests with go-ethereum's apitypes for the
// default domain, another chain and custom names, over random orders.
func TestApitypesAgrees(t *testing.T) {
	other := DefaultConfig()
	other.ChainID = 80002
	other.DomainName, other.DomainVersion = "Other Exchange", "7"
	r := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []Config{DefaultConfig(), other} {
		d, err := newDomains(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, negRisk := range []bool{false, true} {
			td := apitypes.TypedData{Types: apitypesTypes(), Domain: apitypesDomain(cfg, negRisk)}
			sep, err := td.HashStruct("EIP712Domain", td.Domain.Map())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sep, d.separator[negRiskIndex(negRisk)][:]) {
				t.Fatalf("%s neg-risk %v: separator %x, apitypes %x", cfg.DomainName, negRisk, d.separator[negRiskIndex(negRisk)], sep)
			}
			if !bytes.Equal(td.TypeHash("Order"), d.orderTypeHash[:]) || !bytes.Equal(td.TypeHash("TypedDataSign"), d.wrapTypeHash[:]) {
				t.Fatal("type hashes differ from apitypes")
			}
			for range 50 {
				o := randomOrder(r)
				td.PrimaryType = "Order"
				td.Message = apitypesMessage(o)
				want, _, err := apitypes.TypedDataAndHash(td)
				if err != nil {
					t.Fatal(err)
				}
				sh := d.structHash(o)
				if got := d.orderDigest(sh, negRisk); !bytes.Equal(got[:], want) {
					t.Fatalf("order digest %x, apitypes %x", got, want)
				}

				var wallet common.Address
				copy(wallet[:], o.maker[:])
				td.PrimaryType = "TypedDataSign"
				td.Message = apitypes.TypedDataMessage{
					"contents": apitypesMessage(o), "name": DepositWalletName, "version": DepositWalletVersion,
					"chainId": strconv.FormatInt(cfg.ChainID, 10), "verifyingContract": wallet.Hex(),
					"salt": common.Hash{}.Hex(),
				}
				want, _, err = apitypes.TypedDataAndHash(td)
				if err != nil {
					t.Fatal(err)
				}
				if got := d.wrapperDigest(sh, d.separator[negRiskIndex(negRisk)], wallet); !bytes.Equal(got[:], want) {
					t.Fatalf("wrapper digest %x, apitypes %x", got, want)
				}
			}
		}
	}
}

func TestWrapUnwrap(t *testing.T) {
	inner := bytes.Repeat([]byte{7}, sigLen)
	sep, sh := common.Hash{1}, common.Hash{2}
	sig := wrapSignature(inner, sep, sh)
	// docs/protocol.md states these sizes.
	if len(OrderType) != 186 || len(sig) != 317 {
		t.Fatalf("type string %d bytes, signature %d bytes", len(OrderType), len(sig))
	}
	if want := sigLen + 64 + len(OrderType) + 2; len(sig) != want {
		t.Fatalf("length %d, want %d", len(sig), want)
	}
	if n := int(sig[len(sig)-2])<<8 | int(sig[len(sig)-1]); n != len(OrderType) {
		t.Fatalf("trailer %d, want %d", n, len(OrderType))
	}
	w, ok := unwrapSignature(sig)
	if !ok || !bytes.Equal(w.inner, inner) || w.separator != sep || w.structHash != sh || w.typeString != OrderType {
		t.Fatalf("round trip failed: %+v %v", w, ok)
	}
	for _, bad := range [][]byte{nil, sig[:len(sig)-1], sig[1:], append(append([]byte{}, sig...), 0), sig[:wrapFixedLen+1]} {
		if _, ok := unwrapSignature(bad); ok {
			t.Errorf("unwrap accepted %d bytes", len(bad))
		}
	}
}

package signer

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// EIP-712 type strings (DESIGN.md §4). The type hashes are their keccak256.
const (
	OrderType  = "Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)"
	DomainType = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
	// TypedDataSignType is the ERC-7739 wrapper of an Order; its type hash is
	// keccak256(TypedDataSignType + OrderType).
	TypedDataSignType = "TypedDataSign(Order contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)"
	// DepositWalletName and DepositWalletVersion are the deposit wallet's
	// own EIP-712 name and version, used inside the wrapper.
	DepositWalletName    = "DepositWallet"
	DepositWalletVersion = "1"
)

// Signature types.
const (
	SigEOA           = 0 // maker = signer = the key's address
	SigProxy         = 1 // maker = the proxy wallet (funder), signer = the key's address
	SigSafe          = 2 // maker = the Safe (funder), signer = the key's address
	SigDepositWallet = 3 // maker = signer = the deposit wallet; ERC-1271 with an ERC-7739 wrapper
)

// Wire values of Order.side when signed.
const (
	sideBuy  = 0
	sideSell = 1
)

// order is the signed content of an order, decoded.
type order struct {
	salt        uint256.Int
	maker       common.Address
	signer      common.Address
	tokenID     uint256.Int
	makerAmount uint256.Int
	takerAmount uint256.Int
	side        uint8
	sigType     uint8
	timestamp   uint256.Int
	metadata    common.Hash
	builder     common.Hash
}

// domains holds everything that hashing needs and that depends only on the
// Config: the type hashes and both exchanges' domain separators, computed
// once so that hashing an order is a fixed-size encoding and three keccaks.
type domains struct {
	chainID       uint256.Int
	exchange      [2]common.Address // [0] ordinary, [1] neg-risk
	separator     [2]common.Hash
	orderTypeHash common.Hash
	wrapTypeHash  common.Hash
	walletName    common.Hash
	walletVersion common.Hash
	cfg           Config
}

func newDomains(cfg Config) (*domains, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	d := &domains{
		cfg:           cfg,
		orderTypeHash: crypto.Keccak256Hash([]byte(OrderType)),
		wrapTypeHash:  crypto.Keccak256Hash([]byte(TypedDataSignType), []byte(OrderType)),
		walletName:    crypto.Keccak256Hash([]byte(DepositWalletName)),
		walletVersion: crypto.Keccak256Hash([]byte(DepositWalletVersion)),
	}
	d.chainID.SetUint64(uint64(cfg.ChainID))
	d.exchange[0], _ = parseAddress(cfg.Exchange)
	d.exchange[1], _ = parseAddress(cfg.NegRiskExchange)
	domainTypeHash := crypto.Keccak256Hash([]byte(DomainType))
	name := crypto.Keccak256Hash([]byte(cfg.DomainName))
	version := crypto.Keccak256Hash([]byte(cfg.DomainVersion))
	for i, addr := range d.exchange {
		var buf [5 * 32]byte
		copy(buf[0:], domainTypeHash[:])
		copy(buf[32:], name[:])
		copy(buf[64:], version[:])
		d.chainID.PutUint256(buf[96:128])
		copy(buf[128+12:], addr[:])
		d.separator[i] = crypto.Keccak256Hash(buf[:])
	}
	return d, nil
}

func negRiskIndex(negRisk bool) int {
	if negRisk {
		return 1
	}
	return 0
}

// structHash is hashStruct(Order): keccak256 of the type hash and the eleven
// fields, each ABI-encoded into one 32-byte word.
func (d *domains) structHash(o *order) common.Hash {
	var buf [12 * 32]byte
	copy(buf[0:], d.orderTypeHash[:])
	o.salt.PutUint256(buf[32:64])
	copy(buf[64+12:96], o.maker[:])
	copy(buf[96+12:128], o.signer[:])
	o.tokenID.PutUint256(buf[128:160])
	o.makerAmount.PutUint256(buf[160:192])
	o.takerAmount.PutUint256(buf[192:224])
	buf[255] = o.side
	buf[287] = o.sigType
	o.timestamp.PutUint256(buf[288:320])
	copy(buf[320:], o.metadata[:])
	copy(buf[352:], o.builder[:])
	return crypto.Keccak256Hash(buf[:])
}

// typedDataHash is keccak256(0x1901 ‖ domainSeparator ‖ structHash).
func typedDataHash(separator, structHash common.Hash) common.Hash {
	var buf [2 + 32 + 32]byte
	buf[0], buf[1] = 0x19, 0x01
	copy(buf[2:], separator[:])
	copy(buf[34:], structHash[:])
	return crypto.Keccak256Hash(buf[:])
}

// orderDigest is the EIP-712 digest of the order under the exchange domain:
// what types 0-2 sign, and the order hash of every type.
func (d *domains) orderDigest(structHash common.Hash, negRisk bool) common.Hash {
	return typedDataHash(d.separator[negRiskIndex(negRisk)], structHash)
}

// wrapperDigest is what the owner of a deposit wallet signs (type 3): the
// ERC-7739 TypedDataSign struct, whose contents are the order and whose
// name, version, chain id and verifying contract are the wallet's, hashed
// under the exchange domain.
func (d *domains) wrapperDigest(structHash, separator common.Hash, wallet common.Address) common.Hash {
	var buf [7 * 32]byte
	copy(buf[0:], d.wrapTypeHash[:])
	copy(buf[32:], structHash[:])
	copy(buf[64:], d.walletName[:])
	copy(buf[96:], d.walletVersion[:])
	d.chainID.PutUint256(buf[128:160])
	copy(buf[160+12:192], wallet[:])
	// buf[192:224] is the zero salt.
	return typedDataHash(separator, crypto.Keccak256Hash(buf[:]))
}

// Layout of a type-3 signature: inner signature ‖ exchange domain separator
// ‖ order struct hash ‖ contents type string ‖ uint16 big-endian length of
// the type string.
const (
	sigLen         = 65
	wrapFixedLen   = sigLen + 32 + 32
	wrapTrailerLen = 2
)

// wrapSignature builds the type-3 signature.
func wrapSignature(inner []byte, separator, structHash common.Hash) []byte {
	out := make([]byte, 0, wrapFixedLen+len(OrderType)+wrapTrailerLen)
	out = append(out, inner...)
	out = append(out, separator[:]...)
	out = append(out, structHash[:]...)
	out = append(out, OrderType...)
	return binary.BigEndian.AppendUint16(out, uint16(len(OrderType)))
}

// wrapped is a type-3 signature taken apart.
type wrapped struct {
	inner      []byte
	separator  common.Hash
	structHash common.Hash
	typeString string
}

// unwrapSignature parses a type-3 signature; ok is false when the length
// fields do not add up.
func unwrapSignature(sig []byte) (w wrapped, ok bool) {
	if len(sig) < wrapFixedLen+wrapTrailerLen {
		return w, false
	}
	n := int(binary.BigEndian.Uint16(sig[len(sig)-wrapTrailerLen:]))
	if len(sig) != wrapFixedLen+n+wrapTrailerLen {
		return w, false
	}
	w.inner = sig[:sigLen]
	copy(w.separator[:], sig[sigLen:sigLen+32])
	copy(w.structHash[:], sig[sigLen+32:wrapFixedLen])
	w.typeString = string(sig[wrapFixedLen : wrapFixedLen+n])
	return w, true
}

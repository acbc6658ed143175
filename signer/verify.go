package signer

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mmbot/mmbot/exchange"
)

// defaultDiagnosticChains are the chain ids that a Verifier tries, after a
// failed verification, to tell "signed for another chain" from other
// failures: Polygon mainnet and the Amoy testnet.
func defaultDiagnosticChains() []int64 { return []int64{137, 80002} }

// VerifierOption configures a Verifier.
type VerifierOption func(*verifierOptions)

type verifierOptions struct{ chains []int64 }

// WithDiagnosticChains replaces the chain ids (default 137 and 80002) under
// which a failed signature is re-checked to report ErrChainMismatch.
func WithDiagnosticChains(ids ...int64) VerifierOption {
	return func(o *verifierOptions) { o.chains = ids }
}

// Verifier checks signed orders against one Config. It is safe for
// concurrent use.
type Verifier struct {
	d *domains
	// alt are the domains of the diagnostic chains (and of the verifier's
	// own chain), used only after a failure to name its cause.
	alt []*domains
}

// NewVerifier returns a Verifier for cfg.
func NewVerifier(cfg Config, opts ...VerifierOption) (*Verifier, error) {
	d, err := newDomains(cfg)
	if err != nil {
		return nil, err
	}
	vo := verifierOptions{chains: defaultDiagnosticChains()}
	for _, o := range opts {
		o(&vo)
	}
	v := &Verifier{d: d, alt: []*domains{d}}
	for _, id := range vo.chains {
		if id == cfg.ChainID || id <= 0 || slices.ContainsFunc(v.alt, func(a *domains) bool { return a.cfg.ChainID == id }) {
			continue
		}
		c := cfg
		c.ChainID = id
		a, err := newDomains(c)
		if err != nil {
			return nil, err
		}
		v.alt = append(v.alt, a)
	}
	return v, nil
}

// decodeOrder parses the signed fields of a wire order.
func decodeOrder(w exchange.SignedOrder) (*order, error) {
	var o order
	var err error
	if o.salt, err = parseDecimal(w.Salt); err != nil {
		return nil, fieldErr("salt", err)
	}
	if o.maker, err = parseAddress(w.Maker); err != nil {
		return nil, fieldErr("maker", err)
	}
	if o.signer, err = parseAddress(w.Signer); err != nil {
		return nil, fieldErr("signer", err)
	}
	if o.tokenID, err = parseDecimal(w.TokenID); err != nil {
		return nil, fieldErr("tokenId", err)
	}
	if o.makerAmount, err = parseDecimal(w.MakerAmount); err != nil {
		return nil, fieldErr("makerAmount", err)
	}
	if o.takerAmount, err = parseDecimal(w.TakerAmount); err != nil {
		return nil, fieldErr("takerAmount", err)
	}
	switch w.Side {
	case exchange.Buy:
		o.side = sideBuy
	case exchange.Sell:
		o.side = sideSell
	default:
		return nil, fieldErr("side", ErrInvalidSide)
	}
	if w.SignatureType < SigEOA || w.SignatureType > SigDepositWallet {
		return nil, fieldErr("signatureType", fmt.Errorf("%d is not 0, 1, 2 or 3", w.SignatureType))
	}
	o.sigType = uint8(w.SignatureType)
	if o.timestamp, err = parseDecimal(w.Timestamp); err != nil {
		return nil, fieldErr("timestamp", err)
	}
	if o.metadata, err = parseBytes32(w.Metadata); err != nil {
		return nil, fieldErr("metadata", err)
	}
	if o.builder, err = parseBytes32(w.Builder); err != nil {
		return nil, fieldErr("builder", err)
	}
	return &o, nil
}

// OrderHash returns the order hash of o (0x-prefixed lowercase hex of its
// EIP-712 digest) under v's domain; the signature is not read.
func (v *Verifier) OrderHash(o exchange.SignedOrder, negRisk bool) (string, error) {
	dec, err := decodeOrder(o)
	if err != nil {
		return "", err
	}
	h := v.d.orderDigest(v.d.structHash(dec), negRisk)
	return hex0x(h[:]), nil
}

// OrderHash returns the order hash of o under cfg's domain (the exchange's,
// or the neg-risk exchange's when negRisk).
func OrderHash(o exchange.SignedOrder, negRisk bool, cfg Config) (string, error) {
	d, err := newDomains(cfg)
	if err != nil {
		return "", err
	}
	return (&Verifier{d: d}).OrderHash(o, negRisk)
}

// VerifyOrder checks o's signature under v's domain (the neg-risk exchange's
// when negRisk) and returns the checksummed address of the key that signed
// it: the signer field for types 0-2, the wallet's owner for type 3.
//
// walletOwner maps a wallet (checksummed) to its owner's address. Type 3
// needs it (ErrUnknownWallet otherwise). For types 1 and 2 it is optional:
// when it knows the funder (the maker), the signer must be its owner.
//
// Every failure wraps one sentinel: ErrInvalidOrder (a field does not
// parse), ErrMalformedSignature, ErrSignatureMismatch (types 0-2: another key
// or a changed field), ErrDomainMismatch, ErrChainMismatch,
// ErrStructHashMismatch (type 3: a changed field), ErrTypeMismatch,
// ErrUnknownWallet or ErrWrongSigner. For types 0-2 the domain and chain
// cases are found by recovering the signer again under the other exchange
// and the diagnostic chains, after the check has failed.
func (v *Verifier) VerifyOrder(o exchange.SignedOrder, negRisk bool, walletOwner func(wallet string) (ownerAddr string, ok bool)) (string, error) {
	dec, err := decodeOrder(o)
	if err != nil {
		return "", err
	}
	sig, err := decodeHex0x(o.Signature)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrMalformedSignature, err)
	}
	sh := v.d.structHash(dec)
	nr := negRiskIndex(negRisk)
	sep := v.d.separator[nr]

	if dec.sigType == SigDepositWallet {
		return v.verifyWallet(dec, sh, sep, sig, walletOwner)
	}
	if dec.sigType == SigEOA && dec.maker != dec.signer {
		return "", fmt.Errorf("%w: signature type 0 needs maker = signer", ErrInvalidOrder)
	}
	if len(sig) != sigLen {
		return "", fmt.Errorf("%w: %d bytes, want %d", ErrMalformedSignature, len(sig), sigLen)
	}
	rec, err := recoverAddress(typedDataHash(sep, sh), sig)
	if err != nil {
		return "", err
	}
	if rec != dec.signer {
		return "", v.diagnose(sh, sig, dec.signer, negRisk)
	}
	if walletOwner != nil && dec.sigType != SigEOA {
		if owner, ok := walletOwner(dec.maker.Hex()); ok {
			oa, err := parseAddress(owner)
			if err != nil || oa != rec {
				return "", fmt.Errorf("%w: %s does not own funder %s", ErrWrongSigner, rec.Hex(), dec.maker.Hex())
			}
		}
	}
	return rec.Hex(), nil
}

// verifyWallet checks a type-3 (deposit wallet, ERC-7739) signature.
func (v *Verifier) verifyWallet(dec *order, sh, sep common.Hash, sig []byte, walletOwner func(string) (string, bool)) (string, error) {
	if dec.maker != dec.signer {
		return "", fmt.Errorf("%w: signature type 3 needs maker = signer = the wallet", ErrInvalidOrder)
	}
	w, ok := unwrapSignature(sig)
	if !ok {
		return "", fmt.Errorf("%w: %d bytes do not parse as a type-3 wrapper", ErrMalformedSignature, len(sig))
	}
	if w.typeString != OrderType {
		return "", ErrTypeMismatch
	}
	if w.separator != sep {
		return "", v.diagnoseSeparator(w.separator)
	}
	if w.structHash != sh {
		return "", ErrStructHashMismatch
	}
	wallet := dec.maker.Hex()
	if walletOwner == nil {
		return "", fmt.Errorf("%w: %s", ErrUnknownWallet, wallet)
	}
	ownerStr, ok := walletOwner(wallet)
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrUnknownWallet, wallet)
	}
	owner, err := parseAddress(ownerStr)
	if err != nil {
		return "", fmt.Errorf("%w: owner of %s: %w", ErrUnknownWallet, wallet, err)
	}
	rec, err := recoverAddress(v.d.wrapperDigest(sh, sep, dec.maker), w.inner)
	if err != nil {
		return "", err
	}
	if rec != owner {
		return "", fmt.Errorf("%w: %s signed for wallet %s owned by %s", ErrWrongSigner, rec.Hex(), wallet, owner.Hex())
	}
	return rec.Hex(), nil
}

// diagnose names why a type 0-2 signature did not recover to the signer:
// another exchange or chain when it does recover there, else a mismatch.
func (v *Verifier) diagnose(sh common.Hash, sig []byte, signer common.Address, negRisk bool) error {
	for _, a := range v.alt {
		for i := range a.separator {
			if a == v.d && i == negRiskIndex(negRisk) {
				continue
			}
			if rec, err := recoverAddress(typedDataHash(a.separator[i], sh), sig); err == nil && rec == signer {
				return v.domainError(a, i)
			}
		}
	}
	return fmt.Errorf("%w: signer field %s", ErrSignatureMismatch, signer.Hex())
}

// diagnoseSeparator names the domain of an embedded separator that is not
// the expected one.
func (v *Verifier) diagnoseSeparator(sep common.Hash) error {
	for _, a := range v.alt {
		for i := range a.separator {
			if a.separator[i] == sep {
				return v.domainError(a, i)
			}
		}
	}
	return fmt.Errorf("%w: unknown domain separator %s", ErrDomainMismatch, sep.Hex())
}

func (v *Verifier) domainError(a *domains, i int) error {
	if a.cfg.ChainID != v.d.cfg.ChainID {
		return fmt.Errorf("%w: signed for chain %d, want %d", ErrChainMismatch, a.cfg.ChainID, v.d.cfg.ChainID)
	}
	if i == 1 {
		return fmt.Errorf("%w: signed for the neg-risk exchange %s", ErrDomainMismatch, a.exchange[1].Hex())
	}
	return fmt.Errorf("%w: signed for the ordinary exchange %s", ErrDomainMismatch, a.exchange[0].Hex())
}

// recoverAddress recovers the address that signed digest with a 65-byte
// R ‖ S ‖ V signature, V = 27 or 28 and S in the lower half of the curve
// order (as the exchange contracts require).
func recoverAddress(digest common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != sigLen {
		return common.Address{}, fmt.Errorf("%w: %d bytes, want %d", ErrMalformedSignature, len(sig), sigLen)
	}
	v := sig[64]
	if v != 27 && v != 28 {
		return common.Address{}, fmt.Errorf("%w: v = %d, want 27 or 28", ErrMalformedSignature, v)
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	// homestead = true also rejects s above half the curve order.
	if !crypto.ValidateSignatureValues(v-27, r, s, true) {
		return common.Address{}, fmt.Errorf("%w: r or s out of range", ErrMalformedSignature)
	}
	var norm [sigLen]byte
	copy(norm[:], sig)
	norm[64] = v - 27
	pub, err := crypto.SigToPub(digest[:], norm[:])
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %w", ErrMalformedSignature, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

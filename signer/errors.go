package signer

import "errors"

// Errors of order building. They are wrapped with the offending field and
// value (prices and sizes are not secret); test with errors.Is.
var (
	ErrInvalidTick     = errors.New("invalid tick size")
	ErrPriceOffTick    = errors.New("price not on the tick grid")
	ErrPriceOutOfRange = errors.New("price outside [tick, 1-tick]")
	ErrSizeTooSmall    = errors.New("size below the market minimum")
	ErrSizePrecision   = errors.New("size has more than 2 decimals")
	ErrInvalidSize     = errors.New("size must be positive")
	ErrAmountOverflow  = errors.New("amount overflows")
	ErrInvalidSide     = errors.New("side must be BUY or SELL")
	ErrInvalidOrder    = errors.New("invalid order")
	ErrInvalidConfig   = errors.New("invalid signer config")
	ErrInvalidAccount  = errors.New("invalid account")
)

// Errors of order verification (Verifier.VerifyOrder). Each failure mode has
// its own sentinel so that the simulated exchange and tests can tell them
// apart.
var (
	// ErrMalformedSignature: the signature is not hex, has the wrong length,
	// a v other than 27/28, a high s, or a type-3 wrapper that does not parse.
	ErrMalformedSignature = errors.New("malformed signature")
	// ErrSignatureMismatch: types 0-2, the key recovered from the signature is
	// not the order's signer field (a tampered field or another key).
	ErrSignatureMismatch = errors.New("signature does not match the order's signer")
	// ErrWrongSigner: type 3, the key that signed the wrapper is not the
	// wallet's owner; types 1-2, the signer does not own the known funder.
	ErrWrongSigner = errors.New("order signed by a key that does not own the wallet")
	// ErrDomainMismatch: the order was signed under another EIP-712 domain
	// than the verifier's (for example for the other exchange contract).
	ErrDomainMismatch = errors.New("order signed under another EIP-712 domain")
	// ErrChainMismatch: the order was signed for another chain id.
	ErrChainMismatch = errors.New("order signed for another chain")
	// ErrStructHashMismatch: type 3, the order struct hash embedded in the
	// signature is not the hash of the order's fields (a tampered field).
	ErrStructHashMismatch = errors.New("order fields do not match the signed struct hash")
	// ErrTypeMismatch: type 3, the embedded contents type string is not the
	// Order type.
	ErrTypeMismatch = errors.New("signed contents type is not the Order type")
	// ErrUnknownWallet: type 3, the wallet's owner is not known.
	ErrUnknownWallet = errors.New("unknown wallet")
)

// Errors of keys and credentials. Their messages never contain the rejected
// material.
var (
	ErrInvalidKey         = errors.New("invalid private key")
	ErrKeySource          = errors.New("invalid key source")
	ErrKeystore           = errors.New("cannot decrypt keystore")
	ErrInvalidCredentials = errors.New("invalid API credentials")
)

// Errors of L2 request verification (VerifyL2).
var (
	ErrMissingHeader   = errors.New("missing authentication header")
	ErrMalformedHeader = errors.New("malformed authentication header")
	ErrUnknownAPIKey   = errors.New("unknown API key")
	ErrBadPassphrase   = errors.New("bad passphrase")
	ErrBadSignature    = errors.New("bad request signature")
	ErrStaleTimestamp  = errors.New("request timestamp outside the freshness window")
	ErrAddressMismatch = errors.New("address does not belong to the API key")
)

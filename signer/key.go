package signer

import (
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mmbot/mmbot/internal/secret"
	"github.com/rs/zerolog"
)

// Key is a secp256k1 private key. Every printing path (fmt verbs, JSON,
// text, zerolog), of a Key or a *Key, shows only its address. The zero Key
// is not usable; get one from ParseKey, LoadKey or GenerateKey.
type Key struct {
	priv *ecdsa.PrivateKey
	addr common.Address
}

// ParseKey parses 64 hex digits, with or without 0x, surrounding whitespace
// ignored (key files end with a newline). Errors never quote the input.
func ParseKey(s secret.Value) (*Key, error) {
	raw := strings.TrimSpace(s.Reveal())
	if len(raw) >= 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X') {
		raw = raw[2:]
	}
	if len(raw) != 64 {
		return nil, fmt.Errorf("%w: want 64 hex digits, got %d characters", ErrInvalidKey, len(raw))
	}
	var b [32]byte
	defer clear(b[:])
	if _, err := hex.Decode(b[:], []byte(raw)); err != nil {
		return nil, fmt.Errorf("%w: not hex", ErrInvalidKey)
	}
	return keyFromBytes(b[:])
}

func keyFromBytes(b []byte) (*Key, error) {
	priv, err := crypto.ToECDSA(b)
	if err != nil {
		// go-ethereum's messages here name no key material, but keep ours
		// uniform.
		return nil, fmt.Errorf("%w: not a valid secp256k1 scalar", ErrInvalidKey)
	}
	return &Key{priv: priv, addr: crypto.PubkeyToAddress(priv.PublicKey)}, nil
}

// GenerateKey makes a new key from rand (crypto/rand.Reader in production).
func GenerateKey(rand io.Reader) (*Key, error) {
	var b [32]byte
	defer clear(b[:])
	for range 16 {
		if _, err := io.ReadFull(rand, b[:]); err != nil {
			return nil, fmt.Errorf("generate key: %w", err)
		}
		if k, err := keyFromBytes(b[:]); err == nil {
			return k, nil
		}
	}
	return nil, fmt.Errorf("generate key: %w: random source gives no valid scalar", ErrInvalidKey)
}

// Address is the key's EIP-55 checksummed address.
func (k *Key) Address() string { return k.addr.Hex() }

// Hex returns the key as 0x-prefixed hex, for writing a credentials file.
func (k *Key) Hex() secret.Value {
	b := crypto.FromECDSA(k.priv)
	defer clear(b)
	return secret.New(hex0x(b))
}

// sign signs a 32-byte digest and returns R ‖ S ‖ V with V = 27 or 28.
func (k *Key) sign(digest common.Hash) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], k.priv)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	sig[64] += 27
	return sig, nil
}

func (k Key) redacted() string {
	return "signer.Key{" + k.addr.Hex() + ", private " + secret.Redacted + "}"
}

// String implements fmt.Stringer.
func (k Key) String() string { return k.redacted() }

// GoString implements fmt.GoStringer.
func (k Key) GoString() string { return k.redacted() }

// Format implements fmt.Formatter: every verb prints the redacted form.
func (k Key) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, k.redacted()) }

// MarshalJSON implements json.Marshaler.
func (k Key) MarshalJSON() ([]byte, error) {
	return []byte(`{"address":"` + k.addr.Hex() + `","private":"` + secret.Redacted + `"}`), nil
}

// MarshalText implements encoding.TextMarshaler.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.redacted()), nil }

// MarshalZerologObject implements zerolog.LogObjectMarshaler.
func (k Key) MarshalZerologObject(e *zerolog.Event) {
	e.Str("address", k.addr.Hex())
	e.Str("private", secret.Redacted)
}

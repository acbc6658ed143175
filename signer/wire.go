package signer

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// Parsers of the string fields of the wire order. They are strict so that
// one signed order has exactly one wire form: decimals are canonical (no
// sign, no leading zero), hex is 0x-prefixed, and a mixed-case address must
// carry a valid EIP-55 checksum.

var (
	errNotAddress = errors.New("want 0x followed by 40 hex digits")
	errChecksum   = errors.New("mixed-case address with a bad EIP-55 checksum")
	errNotDecimal = errors.New("want a canonical unsigned decimal integer")
	errRange      = errors.New("exceeds 2^256-1")
	errNotBytes32 = errors.New("want 0x followed by 64 hex digits")
)

// parseAddress parses a 0x-prefixed address. All-lower or all-upper hex is
// accepted as is; mixed case must be the EIP-55 checksummed form.
func parseAddress(s string) (common.Address, error) {
	var a common.Address
	if len(s) != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return a, errNotAddress
	}
	if _, err := hex.Decode(a[:], []byte(s[2:])); err != nil {
		return a, errNotAddress
	}
	lower, upper := false, false
	for _, c := range s[2:] {
		switch {
		case c >= 'a' && c <= 'f':
			lower = true
		case c >= 'A' && c <= 'F':
			upper = true
		}
	}
	if lower && upper && a.Hex() != "0x"+s[2:] {
		return a, errChecksum
	}
	return a, nil
}

// parseDecimal parses a canonical unsigned decimal into a uint256.
func parseDecimal(s string) (uint256.Int, error) {
	var z uint256.Int
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return z, errNotDecimal
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return z, errNotDecimal
		}
	}
	if err := z.SetFromDecimal(s); err != nil {
		return z, errRange
	}
	return z, nil
}

// parseBytes32 parses 0x followed by 64 hex digits.
func parseBytes32(s string) (common.Hash, error) {
	var h common.Hash
	if len(s) != 66 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return h, errNotBytes32
	}
	if _, err := hex.Decode(h[:], []byte(s[2:])); err != nil {
		return h, errNotBytes32
	}
	return h, nil
}

// parseBytes32OrZero is parseBytes32 that maps "" to 32 zero bytes.
func parseBytes32OrZero(s string) (common.Hash, error) {
	if s == "" {
		return common.Hash{}, nil
	}
	return parseBytes32(s)
}

// hex0x is the 0x-prefixed lowercase hex of b.
func hex0x(b []byte) string {
	out := make([]byte, 2+2*len(b))
	out[0], out[1] = '0', 'x'
	hex.Encode(out[2:], b)
	return string(out)
}

// decodeHex0x decodes 0x-prefixed hex of any even length.
func decodeHex0x(s string) ([]byte, error) {
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len(s)%2 != 0 {
		return nil, errors.New("want 0x-prefixed hex of even length")
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, errors.New("not hex")
	}
	return b, nil
}

// fieldErr wraps a field parsing error into ErrInvalidOrder.
func fieldErr(field string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrInvalidOrder, field, err)
}

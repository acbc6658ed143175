package signer

import (
	"errors"

	xscrypt "golang.org/x/crypto/scrypt"
)

// scrypt derives a keystore key with golang.org/x/crypto/scrypt after
// bounding its parameters: maxMem caps the 128·r·N bytes (and r·p) a hostile
// keystore file could make it allocate.
func scrypt(password, salt []byte, n, r, p, keyLen int, maxMem int64) ([]byte, error) {
	if n < 2 || n&(n-1) != 0 {
		return nil, errors.New("scrypt: N must be a power of 2 above 1")
	}
	if r < 1 || p < 1 || keyLen < 1 || keyLen > 1024 {
		return nil, errors.New("scrypt: r, p and the key length must be positive (key length at most 1024)")
	}
	if uint64(r)*uint64(p) >= 1<<30 || int64(r) > maxMem/128/int64(n) || int64(r)*int64(p) > maxMem/128 {
		return nil, errors.New("scrypt: parameters need more memory than allowed")
	}
	return xscrypt.Key(password, salt, n, r, p, keyLen)
}

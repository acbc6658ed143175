package signer

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/bits"
)

// scrypt is the scrypt key derivation function of RFC 7914, written here
// from the RFC because golang.org/x/crypto is not among the module's
// dependencies. It serves keystore decryption only and is checked against
// the RFC's test vectors. maxMem bounds the 128·r·N bytes it allocates.
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
	blockLen := 128 * r
	b, err := pbkdf2.Key(sha256.New, string(password), salt, 1, p*blockLen)
	if err != nil {
		return nil, err
	}
	x := make([]uint32, 32*r)
	y := make([]uint32, 32*r)
	v := make([]uint32, 32*r*n)
	for i := range p {
		roMix(b[i*blockLen:(i+1)*blockLen], r, n, x, y, v)
	}
	return pbkdf2.Key(sha256.New, string(password), b, 1, keyLen)
}

// roMix is scryptROMix (RFC 7914 §5) on one 128·r-byte block, in place.
// x, y (32·r words) and v (32·r·n words) are scratch space.
func roMix(block []byte, r, n int, x, y, v []uint32) {
	w := 32 * r
	for i := range x {
		x[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
	for i := range n {
		copy(v[i*w:], x)
		blockMix(x, y, r)
	}
	for range n {
		// Integerify: the first word of the last 64-byte block, mod n.
		j := int(x[w-16] & uint32(n-1))
		vj := v[j*w : (j+1)*w]
		for k := range x {
			x[k] ^= vj[k]
		}
		blockMix(x, y, r)
	}
	for i, u := range x {
		binary.LittleEndian.PutUint32(block[4*i:], u)
	}
}

// blockMix is scryptBlockMix (RFC 7914 §4) with Salsa20/8 on the 2r 64-byte
// blocks of b (16 words each); y is scratch space of the same size. Outputs
// of even blocks go to the first half, of odd blocks to the second.
func blockMix(b, y []uint32, r int) {
	var t [16]uint32
	copy(t[:], b[(2*r-1)*16:])
	for i := range 2 * r {
		for k := range t {
			t[k] ^= b[i*16+k]
		}
		salsa208(&t)
		dst := (i/2)*16 + (i%2)*r*16
		copy(y[dst:dst+16], t[:])
	}
	copy(b, y)
}

// salsa208 is the Salsa20/8 core (RFC 7914 §3): four double rounds, each a
// column round and a row round of quarter-rounds, then the feed-forward
// addition of the input. It is unrolled into locals for speed.
func salsa208(b *[16]uint32) {
	x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15 := b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
	for range 4 {
		// Column round.
		x4 ^= bits.RotateLeft32(x0+x12, 7)
		x8 ^= bits.RotateLeft32(x4+x0, 9)
		x12 ^= bits.RotateLeft32(x8+x4, 13)
		x0 ^= bits.RotateLeft32(x12+x8, 18)
		x9 ^= bits.RotateLeft32(x5+x1, 7)
		x13 ^= bits.RotateLeft32(x9+x5, 9)
		x1 ^= bits.RotateLeft32(x13+x9, 13)
		x5 ^= bits.RotateLeft32(x1+x13, 18)
		x14 ^= bits.RotateLeft32(x10+x6, 7)
		x2 ^= bits.RotateLeft32(x14+x10, 9)
		x6 ^= bits.RotateLeft32(x2+x14, 13)
		x10 ^= bits.RotateLeft32(x6+x2, 18)
		x3 ^= bits.RotateLeft32(x15+x11, 7)
		x7 ^= bits.RotateLeft32(x3+x15, 9)
		x11 ^= bits.RotateLeft32(x7+x3, 13)
		x15 ^= bits.RotateLeft32(x11+x7, 18)
		// Row round.
		x1 ^= bits.RotateLeft32(x0+x3, 7)
		x2 ^= bits.RotateLeft32(x1+x0, 9)
		x3 ^= bits.RotateLeft32(x2+x1, 13)
		x0 ^= bits.RotateLeft32(x3+x2, 18)
		x6 ^= bits.RotateLeft32(x5+x4, 7)
		x7 ^= bits.RotateLeft32(x6+x5, 9)
		x4 ^= bits.RotateLeft32(x7+x6, 13)
		x5 ^= bits.RotateLeft32(x4+x7, 18)
		x11 ^= bits.RotateLeft32(x10+x9, 7)
		x8 ^= bits.RotateLeft32(x11+x10, 9)
		x9 ^= bits.RotateLeft32(x8+x11, 13)
		x10 ^= bits.RotateLeft32(x9+x8, 18)
		x12 ^= bits.RotateLeft32(x15+x14, 7)
		x13 ^= bits.RotateLeft32(x12+x15, 9)
		x14 ^= bits.RotateLeft32(x13+x12, 13)
		x15 ^= bits.RotateLeft32(x14+x13, 18)
	}
	b[0] += x0
	b[1] += x1
	b[2] += x2
	b[3] += x3
	b[4] += x4
	b[5] += x5
	b[6] += x6
	b[7] += x7
	b[8] += x8
	b[9] += x9
	b[10] += x10
	b[11] += x11
	b[12] += x12
	b[13] += x13
	b[14] += x14
	b[15] += x15
}

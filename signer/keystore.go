package signer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mmbot/mmbot/internal/secret"
)

// Limits on keystore parameters, so that a hostile file cannot make
// decryption take gigabytes or hours. go-ethereum's standard scrypt
// parameters (N = 2^18, r = 8, p = 1) need 256 MiB.
const (
	keystoreMaxMem    = 1 << 30
	keystoreMaxPBKDF2 = 10_000_000
)

// keystoreFile is the part of a go-ethereum keystore (Web3 Secret Storage,
// version 3) that decryption reads.
type keystoreFile struct {
	Address string `json:"address"`
	Version int    `json:"version"`
	Crypto  struct {
		Cipher       string `json:"cipher"`
		CipherText   string `json:"ciphertext"`
		CipherParams struct {
			IV string `json:"iv"`
		} `json:"cipherparams"`
		KDF       string `json:"kdf"`
		KDFParams struct {
			DKLen int    `json:"dklen"`
			Salt  string `json:"salt"`
			N     int    `json:"n"`
			R     int    `json:"r"`
			P     int    `json:"p"`
			C     int    `json:"c"`
			PRF   string `json:"prf"`
		} `json:"kdfparams"`
		MAC string `json:"mac"`
	} `json:"crypto"`
}

func keystoreErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrKeystore}, a...)...)
}

// DecryptKeystore decrypts a go-ethereum keystore (version 3: scrypt or
// PBKDF2-HMAC-SHA256, AES-128-CTR, keccak256 MAC). A wrong password and a
// corrupt file both fail the MAC check with ErrKeystore.
func DecryptKeystore(keyJSON []byte, password secret.Value) (*Key, error) {
	var ks keystoreFile
	if err := json.Unmarshal(keyJSON, &ks); err != nil {
		return nil, keystoreErr("not keystore JSON")
	}
	if ks.Version != 3 {
		return nil, keystoreErr("version %d, want 3", ks.Version)
	}
	c := ks.Crypto
	if c.Cipher != "aes-128-ctr" {
		return nil, keystoreErr("cipher %q, want aes-128-ctr", c.Cipher)
	}
	cipherText, err1 := hex.DecodeString(c.CipherText)
	iv, err2 := hex.DecodeString(c.CipherParams.IV)
	salt, err3 := hex.DecodeString(c.KDFParams.Salt)
	mac, err4 := hex.DecodeString(c.MAC)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || len(iv) != aes.BlockSize || len(cipherText) == 0 || len(cipherText) > 32 {
		return nil, keystoreErr("ciphertext, iv, salt or mac malformed")
	}
	p := c.KDFParams
	if p.DKLen < 32 || p.DKLen > 1024 {
		return nil, keystoreErr("dklen %d, want 32 or more", p.DKLen)
	}
	pass := []byte(password.Reveal())
	defer clear(pass)
	var dk []byte
	var err error
	switch c.KDF {
	case "scrypt":
		dk, err = scrypt(pass, salt, p.N, p.R, p.P, p.DKLen, keystoreMaxMem)
	case "pbkdf2":
		if p.PRF != "hmac-sha256" {
			return nil, keystoreErr("pbkdf2 prf %q, want hmac-sha256", p.PRF)
		}
		if p.C < 1 || p.C > keystoreMaxPBKDF2 {
			return nil, keystoreErr("pbkdf2 iteration count %d out of range", p.C)
		}
		dk, err = pbkdf2.Key(sha256.New, string(pass), salt, p.C, p.DKLen)
	default:
		return nil, keystoreErr("kdf %q, want scrypt or pbkdf2", c.KDF)
	}
	if err != nil {
		return nil, keystoreErr("%v", err)
	}
	defer clear(dk)
	if subtle.ConstantTimeCompare(crypto.Keccak256(dk[16:32], cipherText), mac) != 1 {
		return nil, keystoreErr("wrong password or corrupt file (MAC mismatch)")
	}
	block, err := aes.NewCipher(dk[:16])
	if err != nil {
		return nil, keystoreErr("%v", err)
	}
	// Old encoders dropped leading zero bytes of the key; put them back.
	var plain [32]byte
	defer clear(plain[:])
	cipher.NewCTR(block, iv).XORKeyStream(plain[32-len(cipherText):], cipherText)
	k, err := keyFromBytes(plain[:])
	if err != nil {
		return nil, err
	}
	if ks.Address != "" {
		want := strings.TrimPrefix(strings.ToLower(ks.Address), "0x")
		if want != strings.TrimPrefix(strings.ToLower(k.Address()), "0x") {
			return nil, keystoreErr("the file's address %s is not its key's %s", ks.Address, k.Address())
		}
	}
	return k, nil
}

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// decOf reads a decimal string of the status document (zero when it is
// not one).
func decOf(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}

// goldenStatus is the daemon package's golden status document (its
// TestStatusDocument builds it from a fixture): every field, filled.
func goldenStatus(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "daemon", "testdata", "status", "status.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seedBytes makes a ChaCha8 seed of a number.
func seedBytes(seed uint64) [32]byte {
	var b [32]byte
	for i := range 4 {
		s := seed + uint64(i)*0x9e3779b97f4a7c15
		for j := range 8 {
			b[i*8+j] = byte(s >> (8 * j))
		}
	}
	return b
}

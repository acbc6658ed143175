package state

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// t0 is the fixed clock origin of the tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newTestStore opens a fresh journal in a per-test temporary directory and,
// on cleanup, checks its invariants and closes it (bbolt's btesting style).
func newTestStore(t testing.TB, opts Options) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	opts.NoSync = true // fsync is exercised by the crash test and the benchmark
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	checkOnCleanup(t, s)
	return s
}

// checkOnCleanup runs Check and Close when the test ends.
func checkOnCleanup(t testing.TB, s *Store) {
	t.Helper()
	t.Cleanup(func() {
		if err := s.Check(); err != nil {
			t.Errorf("Check at cleanup: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// testOrder returns a valid intent numbered i on token tok.
func testOrder(i int, tok string, side exchange.Side) Order {
	hash := fmt.Sprintf("0x%064x", i)
	salt := fmt.Sprint(1000 + i)
	return Order{
		Hash:        hash,
		ConditionID: "0xcond",
		TokenID:     tok,
		Side:        side,
		Price:       d("0.45"),
		Size:        d("10"),
		OrderType:   exchange.GTC,
		Item: exchange.PlacementItem{
			Order: exchange.SignedOrder{
				Salt: salt, Maker: "0xmaker", Signer: "0xmaker", TokenID: tok, ConditionID: "0xcond",
				MakerAmount: "4500000", TakerAmount: "10000000", Side: side, Timestamp: "1772366400000",
				Signature: "0xsig",
			},
			OrderType: exchange.GTC,
			Owner:     "owner-key",
		},
		Salt:      salt,
		CreatedAt: t0.Add(time.Duration(i) * time.Second),
	}
}

// mustUpdate runs fn in an Update and fails the test on error.
func mustUpdate(t testing.TB, s *Store, fn func(tx *Tx) error) {
	t.Helper()
	if err := s.Update(fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

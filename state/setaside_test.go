package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

func TestSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mmbot-demo.db")
	now := time.Date(2026, 11, 27, 18, 40, 22, 0, time.UTC)

	// missing: nothing to do
	if got, err := SetAside(path, now, Options{}); got != "" || err != nil {
		t.Fatalf("missing journal: %q, %v", got, err)
	}
	// empty: kept, so that runs that never traded leave no trail
	s, err := Open(path, Options{Account: "0xAAAA", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if got, err := SetAside(path, now, Options{}); got != "" || err != nil {
		t.Fatalf("empty journal: %q, %v", got, err)
	}
	// with an order: renamed, twice in one second without overwriting
	for i, want := range []string{path + ".20261127T184022Z", path + ".20261127T184022Z-2"} {
		s, err := Open(path, Options{Account: "0xAAAA", NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Update(func(tx *Tx) error { return tx.PutIntent(testOrder(i+1, "tok", exchange.Buy)) }); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		got, err := SetAside(path, now, Options{})
		if got != want || err != nil {
			t.Fatalf("journal with an order: %q, %v; want %q", got, err, want)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the journal is still at %s", path)
		}
		old, err := Open(got, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if orders, err := old.Orders(OrderFilter{}); err != nil || len(orders) != 1 {
			t.Errorf("the journal set aside holds %d orders (%v), want its 1", len(orders), err)
		}
		_ = old.Close()
	}
	// a journal another process holds is not moved
	s, err = Open(path, Options{Account: "0xAAAA", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(func(tx *Tx) error { return tx.PutIntent(testOrder(9, "tok", exchange.Buy)) }); err != nil {
		t.Fatal(err)
	}
	if got, err := SetAside(path, now, Options{LockTimeout: 50 * time.Millisecond}); got != "" || !errors.Is(err, ErrLocked) {
		t.Errorf("locked journal: %q, %v; want ErrLocked", got, err)
	}
}

package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
)

// metaTxID must agree with bbolt about the newest committed transaction,
// whichever of the two meta pages holds it.
func TestMetaTxIDMatchesBbolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, s)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := 1; i <= 5; i++ {
		mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(testOrder(i, "tokA", exchange.Buy)) })
		var want int
		_ = s.View(func(tx *Tx) error { want = tx.ID(); return nil })
		got, err := metaTxID(f)
		if err != nil || got != uint64(want) {
			t.Fatalf("after commit %d: metaTxID = %d, %v; bbolt says %d", i, got, err, want)
		}
	}
}

func TestMetaTxIDDamagedPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{PageSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_ = db.Update(func(btx *bolt.Tx) error { _, err := btx.CreateBucketIfNotExists([]byte("b")); return err })
	}
	var newest int
	_ = db.View(func(btx *bolt.Tx) error { newest = btx.ID(); return nil })
	_ = db.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	newestPage := newest % 2
	cases := []struct {
		name    string
		damage  func(b []byte)
		want    uint64
		wantErr error
	}{
		{"intact", func([]byte) {}, uint64(newest), nil},
		{"newest meta torn", func(b []byte) { b[newestPage*4096+pageHeaderSize+metaOffTxID] ^= 0xff }, uint64(newest - 1), nil},
		{"meta 0 torn", func(b []byte) { b[pageHeaderSize] ^= 0xff }, map[bool]uint64{true: uint64(newest - 1), false: uint64(newest)}[newestPage == 0], nil},
		{"both torn", func(b []byte) { b[pageHeaderSize] ^= 0xff; b[4096+pageHeaderSize] ^= 0xff }, 0, ErrNotJournal},
		{"zeroed", func(b []byte) { clear(b) }, 0, ErrNotJournal},
	}
	for _, c := range cases {
		b := append([]byte(nil), raw...)
		c.damage(b)
		p := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := metaTxID(f)
		_ = f.Close()
		if got != c.want || !errors.Is(err, c.wantErr) {
			t.Errorf("%s: metaTxID = %d, %v; want %d, %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}

// Read-only opens taken while a writer commits each see exactly the state of
// one committed transaction: one intent per commit, so the number of orders
// equals the copy's transaction id minus the id before the writer started.
// Each round the writer commits a burst of 0 to 7 intents concurrently with
// the copy, then stops, so copy attempts race with commits (and retry) but
// always succeed once the burst is over.
func TestReadOnlyCopiesAreConsistent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	w, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, w)
	var base int
	_ = w.View(func(tx *Tx) error { base = tx.ID(); return nil })

	next := 1
	burst := func(n int, done chan<- error) {
		for range n {
			err := w.Update(func(tx *Tx) error {
				o := testOrder(next, "tokA", exchange.Buy)
				o.Item.Order.Signature = string(make([]byte, 600)) // spread over more pages
				return tx.PutIntent(o)
			})
			if err != nil {
				done <- err
				return
			}
			next++
		}
		done <- nil
	}
	last := base
	for round := range 24 {
		done := make(chan error, 1)
		go burst(round%8, done)
		r, err := Open(path, Options{ReadOnly: true, LockTimeout: 5 * time.Second})
		if werr := <-done; werr != nil {
			t.Fatalf("writer: %v", werr)
		}
		if err != nil {
			t.Fatalf("round %d: read-only open: %v", round, err)
		}
		txID, ok := r.Snapshot()
		if !ok {
			t.Fatal("expected a copy while the writer holds the file")
		}
		all, err := r.Orders(OrderFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != txID-base {
			t.Fatalf("copy at tx %d holds %d orders, want %d", txID, len(all), txID-base)
		}
		if err := r.Check(); err != nil {
			t.Fatalf("copy at tx %d: %v", txID, err)
		}
		_ = r.Close()
		if txID < last {
			t.Fatalf("copy went back in time: tx %d after %d", txID, last)
		}
		last = txID
	}
	if last == base {
		t.Fatal("no copy saw a commit")
	}
}

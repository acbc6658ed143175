package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
)

const shortLock = 50 * time.Millisecond

func TestSecondWriterIsLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, s)
	_, err = Open(path, Options{LockTimeout: shortLock})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, path) || !strings.Contains(msg, "another mmbot instance") {
		t.Fatalf("message does not name the file and the likely cause: %q", msg)
	}
}

func TestReadOnlyAlongsideReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	w, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, w, func(tx *Tx) error { return tx.PutIntent(testOrder(1, "tokA", exchange.Buy)) })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r1, err := Open(path, Options{ReadOnly: true, LockTimeout: shortLock})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, r1)
	r2, err := Open(path, Options{ReadOnly: true, LockTimeout: shortLock})
	if err != nil {
		t.Fatalf("second read-only Open: %v", err)
	}
	checkOnCleanup(t, r2)
	for _, r := range []*Store{r1, r2} {
		if _, ok := r.Snapshot(); ok {
			t.Fatalf("read-only open alongside a reader should read the file itself")
		}
		if all, err := r.Orders(OrderFilter{}); err != nil || len(all) != 1 {
			t.Fatalf("orders %d %v", len(all), err)
		}
		if err := r.Update(func(*Tx) error { return nil }); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("Update on read-only store: %v", err)
		}
	}
	// A writer cannot start while readers hold their shared locks.
	if _, err := Open(path, Options{LockTimeout: shortLock}); !errors.Is(err, ErrLocked) {
		t.Fatalf("writer alongside readers: %v", err)
	}
}

// bbolt's read-only mode takes a shared flock, which the writer's exclusive
// flock refuses: a read-only Open while the daemon runs reads a consistent
// copy instead.
func TestReadOnlyWhileWriterRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	w, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, w)
	mustUpdate(t, w, func(tx *Tx) error { return tx.PutIntent(testOrder(1, "tokA", exchange.Buy)) })

	// Prove the premise: bbolt's own read-only open is refused.
	if db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: shortLock}); err == nil {
		_ = db.Close()
		t.Fatal("bbolt read-only open succeeded while a writer holds the file")
	}

	r, err := Open(path, Options{ReadOnly: true, LockTimeout: shortLock})
	if err != nil {
		t.Fatalf("read-only Open while writer runs: %v", err)
	}
	txID, ok := r.Snapshot()
	if !ok || txID < 2 {
		t.Fatalf("Snapshot() = %d, %v", txID, ok)
	}
	if all, err := r.Orders(OrderFilter{}); err != nil || len(all) != 1 {
		t.Fatalf("orders %d %v", len(all), err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	copyPath := r.copyPath
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(copyPath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("private copy left behind: %v", err)
	}
	// the writer carries on
	mustUpdate(t, w, func(tx *Tx) error { return tx.PutIntent(testOrder(2, "tokA", exchange.Buy)) })
}

func TestReadOnlyMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.db")
	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("read-only Open created the file")
	}
}

func TestAccountMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{Account: "0xAAAA", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	cases := []struct {
		opts    Options
		wantErr error
	}{
		{Options{Account: "0xBBBB"}, ErrAccountMismatch},
		{Options{Account: "0xBBBB", ReadOnly: true}, ErrAccountMismatch},
		{Options{Account: "0xaaaa"}, nil},
		{Options{}, nil},
		{Options{ReadOnly: true}, nil},
	}
	for _, c := range cases {
		s, err := Open(path, c.opts)
		if !errors.Is(err, c.wantErr) {
			t.Fatalf("Open(%+v): %v, want %v", c.opts, err, c.wantErr)
		}
		if err == nil {
			_ = s.View(func(tx *Tx) error {
				if tx.Account() != "0xAAAA" {
					t.Errorf("account became %q", tx.Account())
				}
				return nil
			})
			_ = s.Close()
		}
	}
}

func TestSchemaTooNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(btx *bolt.Tx) error { return putSchemaVersion(btx, SchemaVersion+1) }); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	for _, ro := range []bool{false, true} {
		_, err := Open(path, Options{ReadOnly: ro})
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Errorf("ReadOnly=%v: %v, want ErrSchemaTooNew", ro, err)
		}
	}
}

func TestNotAJournal(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	db, err := bolt.Open(other, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(btx *bolt.Tx) error { _, err := btx.CreateBucket([]byte("widgets")); return err })
	_ = db.Close()
	for _, p := range []string{garbage, other} {
		for _, ro := range []bool{false, true} {
			if _, err := Open(p, Options{ReadOnly: ro}); !errors.Is(err, ErrNotJournal) {
				t.Errorf("Open(%s, ReadOnly=%v): %v, want ErrNotJournal", filepath.Base(p), ro, err)
			}
		}
	}
}

// A file created by bbolt but never initialised (a crash between the file's
// creation and the first commit) reads as an empty journal.
func TestUninitialisedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, r)
	nf, err := r.NonFinalOrders()
	if err != nil || len(nf) != 0 {
		t.Fatalf("%v %v", nf, err)
	}
	if ps, err := r.Positions(); err != nil || len(ps) != 0 {
		t.Fatalf("%v %v", ps, err)
	}
	if fs, err := r.Fills(time.Time{}); err != nil || len(fs) != 0 {
		t.Fatalf("%v %v", fs, err)
	}
	if _, err := r.Order("x"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

// The mismatch error names the journal, both accounts and the ways on:
// the journal's credentials (the simulator's --state), or a new journal.
func TestAccountMismatchSaysWhatToDo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mmbot.db")
	s, err := Open(path, Options{Account: "0xAAAA", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	for _, ro := range []bool{false, true} {
		_, err := Open(path, Options{Account: "0xBBBB", ReadOnly: ro})
		want := "open state " + path + ": journal account 0xAAAA, configured account 0xBBBB: state file belongs to another account; " +
			"either use the credentials the journal was written with (a simulated exchange keeps its accounts across restarts only with " +
			"`mmbot sim --state FILE`), or start a new journal for 0xBBBB: move " + path + " aside or set state.path to another file"
		if err == nil || err.Error() != want {
			t.Errorf("read-only %v:\n got %v\nwant %s", ro, err, want)
		}
		var me *AccountMismatchError
		if !errors.As(err, &me) || me.Path != path || me.Journal != "0xAAAA" || me.Configured != "0xBBBB" {
			t.Errorf("read-only %v: %#v", ro, me)
		}
	}
}

package state

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DefaultLockTimeout is how long Open waits for the file lock when
// Options.LockTimeout is zero.
const DefaultLockTimeout = time.Second

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock; zero means
	// DefaultLockTimeout. A writer that cannot get the lock in time fails
	// with ErrLocked. A ReadOnly open tries the shared lock once and, when a
	// writer holds the file, spends up to LockTimeout taking a consistent
	// copy instead.
	LockTimeout time.Duration

	// Account is the account (the maker address) the journal belongs to. A
	// writable Open records it in a journal that has none and refuses a
	// journal recorded for another account with ErrAccountMismatch; the
	// comparison ignores letter case. Empty skips the check.
	Account string

	// ReadOnly opens the journal for reading only; Update then fails with
	// ErrReadOnly and the file is never modified. See Open for how a
	// read-only open works while a writer runs.
	ReadOnly bool

	// NoSync skips the fsync at each commit. It forfeits durability against
	// power loss (not against a process crash) and exists for tests and
	// benchmarks only.
	NoSync bool
}

// Store is an open order journal. It is safe for concurrent use: bbolt
// serialises writers and lets readers run alongside.
type Store struct {
	db       *bolt.DB
	path     string
	readOnly bool
	// copyPath is the private temporary copy the store reads, when it is not
	// reading path itself (see Open); removed on Close.
	copyPath string
	// copyTxID is the bbolt transaction id of the journal state the copy
	// holds; zero when reading path itself.
	copyTxID int
	// created: this Open initialised the journal (a new file or an empty
	// one).
	created bool
	// open caches where the open orders are (writers only; opencache.go).
	open *openCache
	// names caches the committed token and condition numbers (names.go).
	names *nameCache
}

// Open opens (creating if needed, unless ReadOnly) the journal at path.
//
// A writable Open takes bbolt's exclusive file lock, waiting at most
// LockTimeout; if another process holds it, Open fails with an error wrapping
// ErrLocked that names the file. In one transaction it then creates the
// buckets of a new journal, or checks the schema version (ErrSchemaTooNew if
// the file is newer than this binary) and runs the migrations from an older
// version, and checks the account (ErrAccountMismatch).
//
// A ReadOnly Open never writes to path. It first tries bbolt's read-only
// mode, which takes a shared lock (flock LOCK_SH): it succeeds alongside
// other read-only opens, but never while a writer runs, because the writer
// holds its exclusive lock for as long as it has the file open. When the
// shared lock is refused, Open instead reads the file without locking and
// keeps a copy of it only if no transaction committed while it was read (see
// snapshot.go for why that copy is consistent), retrying for up to
// LockTimeout; the store then reads that private copy (Snapshot reports it).
// A journal in an older schema is likewise read through a migrated private
// copy. While a read-only store holds the shared lock a writer cannot open
// the file, so close read-only stores promptly.
func Open(path string, opts Options) (*Store, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.ReadOnly {
		return openReadOnly(path, opts)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.LockTimeout, NoSync: opts.NoSync})
	if err != nil {
		return nil, openError(path, opts.LockTimeout, err)
	}
	s := &Store{db: db, path: path, open: newOpenCache(), names: newNameCache()}
	if err := db.Update(func(btx *bolt.Tx) (err error) { s.created, err = prepare(btx, path, opts.Account); return err }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	return s, nil
}

// openError turns bbolt's open errors into this package's.
func openError(path string, timeout time.Duration, err error) error {
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("open state %s: %w: lock not granted within %s; another mmbot instance is probably running on this file",
			path, ErrLocked, timeout)
	}
	if errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrVersionMismatch) || errors.Is(err, berrors.ErrChecksum) {
		return fmt.Errorf("open state %s: %w (%w)", path, ErrNotJournal, err)
	}
	return fmt.Errorf("open state %s: %w", path, err)
}

// prepare initialises a new journal (fresh) or migrates an old one, then
// checks the account, all inside the opening transaction.
func prepare(btx *bolt.Tx, path, account string) (fresh bool, err error) {
	v, fresh, err := schemaVersion(btx)
	if err != nil {
		return false, err
	}
	switch {
	case fresh:
		if err := createBuckets(btx, allBuckets); err != nil {
			return false, err
		}
		if err := putSchemaVersion(btx, SchemaVersion); err != nil {
			return false, err
		}
	case v > SchemaVersion:
		return false, fmt.Errorf("schema version %d, this binary knows up to %d: %w", v, SchemaVersion, ErrSchemaTooNew)
	case v < SchemaVersion:
		if err := migrate(btx, v); err != nil {
			return false, err
		}
	}
	return fresh, checkAccount(btx, path, account, true)
}

// checkAccount compares account with the recorded one of the journal at
// path; a writable open records it when none is.
func checkAccount(btx *bolt.Tx, path, account string, record bool) error {
	if account == "" {
		return nil
	}
	meta := btx.Bucket(bucketMeta)
	if meta == nil {
		return nil // an empty read-only journal
	}
	stored := string(meta.Get(keyAccount))
	switch {
	case stored == "" && record:
		return meta.Put(keyAccount, []byte(account))
	case stored == "" || strings.EqualFold(stored, account):
		return nil
	}
	return &AccountMismatchError{Path: path, Journal: stored, Configured: account}
}

// Close closes the journal and removes any private copy.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.copyPath != "" {
		if rerr := os.Remove(s.copyPath); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}

// Path returns the journal's path as given to Open.
func (s *Store) Path() string { return s.path }

// Created reports whether this Open initialised the journal: the file was
// new (or empty), so no earlier process used it. A journal that was not
// created now and has no rate-limit record (RateSpent) was last used by a
// binary that kept none.
func (s *Store) Created() bool { return s.created }

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Snapshot reports whether the store reads a private copy of the journal
// rather than the file itself, and if so the bbolt transaction id of the
// journal state it holds. A copy is taken when a read-only open finds the
// file locked by a writer, or the file in an older schema.
func (s *Store) Snapshot() (txID int, ok bool) { return s.copyTxID, s.copyPath != "" }

// Update runs fn in one read-write transaction: everything fn writes commits
// together with a single fsync, or (if fn or the commit fails) not at all.
// Write one loop cycle's journal changes in one Update.
func (s *Store) Update(fn func(tx *Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("update %s: %w", s.path, ErrReadOnly)
	}
	return s.db.Update(func(btx *bolt.Tx) error { return fn(&Tx{btx: btx, open: s.open, nameCache: s.names}) })
}

// View runs fn in a read-only transaction: a consistent view of the journal.
func (s *Store) View(fn func(tx *Tx) error) error {
	return s.db.View(func(btx *bolt.Tx) error { return fn(&Tx{btx: btx, nameCache: s.names}) })
}

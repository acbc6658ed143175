package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Reading a journal that a running writer holds locked.
//
// bbolt never overwrites a page that the last committed transaction can
// reach. A write transaction copies every page it changes and frees the old
// ones only as "pending" under its own id; a later write transaction may
// reuse them only once no reader of the older state is open (reused pages are
// released at the start of the next write transaction). Readers in another
// process are invisible to the writer, so for them the guarantee is: the
// pages of the state committed by transaction N stay intact until
// transaction N+2 begins, which is after transaction N+1 has committed and
// written its meta page.
//
// So: read the newest valid meta page (transaction N), read the whole file,
// read the meta pages again. If the newest valid transaction is still N, no
// commit finished while the file was read, transaction N+2 cannot have
// begun, and every page of state N in the copy is as N committed it. Meta
// pages carry a checksum, so a meta page caught half-written is invalid and
// bbolt (and metaTxID) ignore it. Otherwise try again. The copy is opened as
// a private bbolt file, its transaction id compared with N and its structure
// checked with bbolt's Tx.Check before it is used.

// openReadOnly implements Open for Options.ReadOnly.
func openReadOnly(path string, opts Options) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	// One try for the shared lock: a writer holds its lock for as long as it
	// runs, so waiting would only delay the copy.
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Nanosecond})
	if errors.Is(err, berrors.ErrTimeout) {
		return openLockedCopy(path, opts)
	}
	if err != nil {
		return nil, openError(path, opts.LockTimeout, err)
	}
	var v int
	var fresh bool
	err = db.View(func(btx *bolt.Tx) error {
		if v, fresh, err = schemaVersion(btx); err != nil {
			return err
		}
		if !fresh && v > SchemaVersion {
			return fmt.Errorf("schema version %d, this binary knows up to %d: %w", v, SchemaVersion, ErrSchemaTooNew)
		}
		return checkAccount(btx, path, opts.Account, false)
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	if fresh || v == SchemaVersion {
		return &Store{db: db, path: path, readOnly: true}, nil
	}
	// An older schema: read a migrated private copy, leave the file alone.
	tmp, err := os.CreateTemp("", "mmbot-state-*.db")
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open state %s: copy for migration: %w", path, err)
	}
	var txID int
	err = db.View(func(btx *bolt.Tx) error {
		txID = btx.ID()
		_, err := btx.WriteTo(tmp)
		return err
	})
	_ = db.Close()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return nil, fmt.Errorf("open state %s: copy for migration: %w", path, err)
	}
	return openCopy(path, tmp.Name(), txID, opts)
}

// openLockedCopy reads a consistent copy of a journal whose writer holds the
// lock, and opens it.
func openLockedCopy(path string, opts Options) (*Store, error) {
	deadline := time.Now().Add(opts.LockTimeout)
	backoff := time.Millisecond
	for attempt := 1; ; attempt++ {
		s, err := tryLockedCopy(path, opts)
		if err == nil || !errors.Is(err, ErrSnapshotBusy) {
			return s, err
		}
		if attempt >= 3 && time.Now().After(deadline) {
			return nil, fmt.Errorf("open state %s read-only while a writer holds it: %w (%d attempts)", path, ErrSnapshotBusy, attempt)
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

// tryLockedCopy makes one attempt; ErrSnapshotBusy means "try again".
func tryLockedCopy(path string, opts Options) (*Store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	defer f.Close()
	before, err := metaTxID(f)
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	tmp, err := os.CreateTemp("", "mmbot-state-*.db")
	if err != nil {
		return nil, fmt.Errorf("open state %s: copy: %w", path, err)
	}
	_, err = io.Copy(tmp, io.NewSectionReader(f, 0, 1<<62))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return nil, fmt.Errorf("open state %s: copy: %w", path, err)
	}
	after, err := metaTxID(f)
	if err != nil || after != before {
		_ = os.Remove(tmp.Name())
		if err != nil {
			return nil, fmt.Errorf("open state %s: %w", path, err)
		}
		return nil, ErrSnapshotBusy
	}
	s, err := openCopy(path, tmp.Name(), int(before), opts)
	if errors.Is(err, errCopyMismatch) {
		return nil, ErrSnapshotBusy
	}
	return s, err
}

// errCopyMismatch: the copy is not the transaction it was taken at, or fails
// bbolt's structural check; the caller takes another copy.
var errCopyMismatch = errors.New("copy does not match the transaction it was taken at")

// openCopy opens the private copy at copyPath, checks it holds transaction
// txID intact, migrates it if its schema is older, and returns a read-only
// Store over it. The copy is removed on failure and on Close.
func openCopy(path, copyPath string, txID int, opts Options) (_ *Store, err error) {
	db, err := bolt.Open(copyPath, 0o600, &bolt.Options{Timeout: opts.LockTimeout, NoSync: true})
	if err != nil {
		_ = os.Remove(copyPath)
		return nil, fmt.Errorf("open state %s: open copy: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = db.Close()
			_ = os.Remove(copyPath)
		}
	}()
	err = db.View(func(btx *bolt.Tx) error {
		if btx.ID() != txID {
			return errCopyMismatch
		}
		for range btx.Check() {
			return errCopyMismatch
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = db.Update(func(btx *bolt.Tx) error {
		v, fresh, err := schemaVersion(btx)
		switch {
		case err != nil:
			return err
		case fresh:
			return nil
		case v > SchemaVersion:
			return fmt.Errorf("schema version %d, this binary knows up to %d: %w", v, SchemaVersion, ErrSchemaTooNew)
		case v < SchemaVersion:
			if err := migrate(btx, v); err != nil {
				return err
			}
		}
		return checkAccount(btx, path, opts.Account, false)
	})
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	return &Store{db: db, path: path, readOnly: true, copyPath: copyPath, copyTxID: txID}, nil
}

// Offsets in bbolt's on-disk meta page (file format version 2): a 16-byte
// page header, then magic, version, page size and flags (uint32 each), the
// root bucket (root page id and sequence, uint64 each), the freelist page
// id, the high-water page id, the transaction id and an FNV-64a checksum of
// everything from magic up to the checksum, all in the host's byte order.
const (
	pageHeaderSize  = 16
	metaMagic       = 0xED0CDAED
	metaVersion     = 2
	metaOffPageSize = 8
	metaOffTxID     = 48
	metaOffChecksum = 56
	metaSize        = 64
)

// metaTxID returns the transaction id of the newest valid meta page of the
// bbolt file f. Meta page 0 is at offset 0; meta page 1 is one page further,
// the page size being recorded in each meta page.
func metaTxID(f io.ReaderAt) (uint64, error) {
	var buf [pageHeaderSize + metaSize]byte
	best, found := uint64(0), false
	pageSize := uint32(0)
	if n, _ := f.ReadAt(buf[:], 0); n == len(buf) {
		if txid, psz, ok := parseMeta(buf[:]); ok {
			best, found, pageSize = txid, true, psz
		}
	}
	sizes := []uint32{pageSize}
	if pageSize == 0 { // meta 0 unreadable: probe the usual page sizes
		sizes = []uint32{4096, 1024, 2048, 8192, 16384, 32768, 65536}
	}
	for _, psz := range sizes {
		if n, _ := f.ReadAt(buf[:], int64(psz)); n != len(buf) {
			continue
		}
		if txid, p, ok := parseMeta(buf[:]); ok && p == psz {
			if !found || txid > best {
				best, found = txid, true
			}
			break
		}
	}
	if !found {
		return 0, fmt.Errorf("no valid bbolt meta page: %w", ErrNotJournal)
	}
	return best, nil
}

// parseMeta validates one meta page (header included) and returns its
// transaction id and page size.
func parseMeta(page []byte) (txid uint64, pageSize uint32, ok bool) {
	m := page[pageHeaderSize:]
	ne := binary.NativeEndian
	if ne.Uint32(m[0:]) != metaMagic || ne.Uint32(m[4:]) != metaVersion {
		return 0, 0, false
	}
	h := fnv.New64a()
	h.Write(m[:metaOffChecksum])
	if h.Sum64() != ne.Uint64(m[metaOffChecksum:]) {
		return 0, 0, false
	}
	return ne.Uint64(m[metaOffTxID:]), ne.Uint32(m[metaOffPageSize:]), true
}

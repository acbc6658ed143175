package state

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/internal/atomicfile"
)

// compactTxSize is how many bytes bbolt's compaction copies per transaction
// into the new file.
const compactTxSize = 64 << 20

// CompactResult is what Compact did: the file's size before and after.
type CompactResult struct {
	Before, After int64
}

// Compact rewrites the journal at path into a new file beside it with
// bbolt's compaction (every live key copied, densely packed, free pages
// left behind), syncs it, and swaps it in atomically: at any instant path
// is the old journal or the new one, whole. bbolt never shrinks a file (it
// reuses freed pages), so this is how space freed by pruning goes back to
// the filesystem.
//
// Compact holds the journal's exclusive lock throughout: while a daemon
// holds it, Compact fails with ErrLocked after opts.LockTimeout and changes
// nothing. The journal is opened as a writer would (schema and account
// checks, any migration) before it is copied.
func Compact(path string, opts Options) (CompactResult, error) {
	var res CompactResult
	fi, err := os.Stat(path)
	if err != nil {
		return res, fmt.Errorf("compact %s: %w", path, err)
	}
	res.Before = fi.Size()
	opts.ReadOnly = false
	src, err := Open(path, opts)
	if err != nil {
		return res, err
	}
	defer src.Close()
	af, err := atomicfile.Create(path, fi.Mode().Perm())
	if err != nil {
		return res, fmt.Errorf("compact %s: %w", path, err)
	}
	if err := compactInto(af.Name(), src.db); err != nil {
		_ = af.Abort()
		return res, fmt.Errorf("compact %s: %w", path, err)
	}
	if err := af.Commit(); err != nil {
		return res, fmt.Errorf("compact %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		res.After = fi.Size()
	}
	return res, nil
}

// compactInto copies src into a new bbolt file at dst (an empty file) and
// syncs it.
func compactInto(dst string, src *bolt.DB) error {
	db, err := bolt.Open(dst, 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		return err
	}
	if err := bolt.Compact(db, src, compactTxSize); err != nil {
		_ = db.Close()
		return err
	}
	if err := db.Sync(); err != nil {
		_ = db.Close()
		return err
	}
	return db.Close()
}

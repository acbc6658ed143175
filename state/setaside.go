package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/mmbot/mmbot/internal/atomicfile"
)

// SetAside moves the journal at path out of the way when it holds anything
// — an order, a fill or a position — by renaming it to
// "<path>.<UTC time>" (e.g. mmbot-demo.db.20261127T184022Z), and returns
// the new name; a missing or empty journal is left where it is ("", nil).
//
// It is for a journal that belongs to an exchange that is gone: the
// embedded simulated exchange lives only as long as its process, so the
// positions and orders a previous run journaled do not exist on the new
// one, and carried over they would count against the risk limits without
// a fill or a PnL behind them. The file is kept, not deleted.
//
// It takes the journal's lock first (waiting at most opts.LockTimeout), so
// a journal another process has open is never moved (ErrLocked).
func SetAside(path string, now time.Time, opts Options) (string, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("set aside %s: %w", path, err)
	}
	s, err := Open(path, Options{LockTimeout: opts.LockTimeout, NoSync: true})
	if err != nil {
		return "", fmt.Errorf("set aside: %w", err)
	}
	used, err := s.used()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil || !used {
		return "", err
	}
	base := path + "." + now.UTC().Format("20060102T150405Z")
	dst := base
	for i := 2; ; i++ { // never over an earlier one set aside in the same second
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = fmt.Sprintf("%s-%d", base, i)
	}
	if err := atomicfile.MoveAside(path, dst); err != nil {
		return "", fmt.Errorf("set aside: %w", err)
	}
	return dst, nil
}

// used reports whether the journal holds an order, a fill or a position.
func (s *Store) used() (bool, error) {
	orders, err := s.Orders(OrderFilter{})
	if err != nil || len(orders) > 0 {
		return len(orders) > 0, err
	}
	fills, err := s.Fills(time.Time{})
	if err != nil || len(fills) > 0 {
		return len(fills) > 0, err
	}
	pos, err := s.Positions()
	return len(pos) > 0, err
}

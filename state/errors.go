package state

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers branch on them with errors.Is; the errors returned
// by this package wrap them with the file, order hash or fill id concerned.
var (
	// ErrLocked: another process holds the journal's file lock (most
	// probably another mmbot instance on the same file).
	ErrLocked = errors.New("state file is locked")

	// ErrAccountMismatch: the journal was written for another account.
	ErrAccountMismatch = errors.New("state file belongs to another account")

	// ErrSchemaTooNew: the journal was written by a newer mmbot.
	ErrSchemaTooNew = errors.New("state file schema is newer than this binary knows")

	// ErrNotJournal: the file is a bbolt database but not an mmbot journal.
	ErrNotJournal = errors.New("file is not an mmbot state journal")

	// ErrNotFound: no order (or fill, or meta key) with that key.
	ErrNotFound = errors.New("not found")

	// ErrOrderExists: PutIntent for a hash that is already journaled.
	ErrOrderExists = errors.New("order already journaled")

	// ErrIllegalTransition: the requested state change is not in the
	// transition table (for example Filled to Live).
	ErrIllegalTransition = errors.New("illegal order state transition")

	// ErrExchangeIDConflict: an order already has another exchange id, or the
	// exchange id already belongs to another order.
	ErrExchangeIDConflict = errors.New("exchange order id conflict")

	// ErrInvalid: a record failed validation (missing hash, bad side, a
	// non-positive price or size, a size matched that shrinks, ...).
	ErrInvalid = errors.New("invalid record")

	// ErrOversell: a SELL fill for more shares than the position holds, and
	// the fill does not say it may open a short.
	ErrOversell = errors.New("sell exceeds position")

	// ErrReadOnly: a write on a read-only store or inside View.
	ErrReadOnly = errors.New("state store is read-only")

	// ErrReservedMeta: SetMeta on a key the store manages itself.
	ErrReservedMeta = errors.New("reserved meta key")

	// ErrInconsistent: Check found an invariant violated.
	ErrInconsistent = errors.New("state journal is inconsistent")

	// ErrSnapshotBusy: a consistent copy of a journal held by a running
	// writer could not be taken because the writer committed during every
	// attempt.
	ErrSnapshotBusy = errors.New("journal changed during every copy attempt")
)

// AccountMismatchError is returned by Open for a journal written for another
// account than the configured one. It matches ErrAccountMismatch and says
// what to do: the journal's orders and fills belong to its account, so the
// only ways on are that account's credentials or a new journal.
type AccountMismatchError struct {
	Path       string // the journal
	Journal    string // the account it was written for
	Configured string // the account configured now
}

func (e *AccountMismatchError) Error() string {
	return fmt.Sprintf("journal account %s, configured account %s: %v; either use the credentials the journal was written with "+
		"(a simulated exchange keeps its accounts across restarts only with `mmbot sim --state FILE`), "+
		"or start a new journal for %s: move %s aside or set state.path to another file",
		e.Journal, e.Configured, ErrAccountMismatch, e.Configured, e.Path)
}

// Is matches ErrAccountMismatch.
func (e *AccountMismatchError) Is(target error) bool { return target == ErrAccountMismatch }

package assemble

// PermanentError marks a start-up failure that retrying cannot fix, such
// as a configured market the exchange does not list (SelectMarkets).
type PermanentError struct{ err error }

func (e *PermanentError) Error() string { return e.err.Error() }
func (e *PermanentError) Unwrap() error { return e.err }

// Permanent marks err as one that retrying cannot fix.
func Permanent(err error) error { return &PermanentError{err: err} }

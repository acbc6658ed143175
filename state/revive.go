package state

import (
	"fmt"
	"time"
)

// Revive moves a Failed order back to Sent: the exchange shows it reached
// the book after all (a trade names it, or a read finds it), though the
// journal had given it up (its placement answer never came, and the
// exchange did not know it when it was read). Sent is the state of an
// order whose outcome is unknown; the exchange's answer then applies as
// usual (ApplyResult), with the fills booked by AddFill. An order already
// open is left as it is; any other final state is ErrIllegalTransition.
func (tx *Tx) Revive(hash string, now time.Time) error {
	if err := tx.writable(); err != nil {
		return err
	}
	prev, err := tx.load(hash, false)
	if err != nil {
		return err
	}
	switch {
	case !prev.State.Final():
		return nil
	case prev.State != Failed:
		return fmt.Errorf("order %s: revive from %s: %w", hash, prev.State, ErrIllegalTransition)
	}
	o := *prev
	o.State = Sent
	o.LastError = ""
	if o.SentAt.IsZero() {
		o.SentAt = now
	}
	o.UpdatedAt = now
	return tx.putOrder(prev, &o)
}

// MetaTradeCursor is the meta key of the trade-history cursor: the match
// time of the newest trade of the account the daemon took, RFC 3339 with
// nanoseconds (written by the daemon with SetMeta).
const MetaTradeCursor = "trade_cursor"

// TradeCursor returns the trade-history cursor (zero when none).
func (tx *Tx) TradeCursor() (time.Time, error) {
	v, ok := tx.Meta(MetaTradeCursor)
	if !ok {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("meta %s %q: %w", MetaTradeCursor, v, ErrInvalid)
	}
	return t, nil
}

// PutTradeCursor records the trade-history cursor.
func (tx *Tx) PutTradeCursor(t time.Time) error {
	return tx.SetMeta(MetaTradeCursor, t.UTC().Format(time.RFC3339Nano))
}

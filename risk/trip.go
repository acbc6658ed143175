package risk

import (
	"errors"
	"fmt"
	"time"
)

// TripReason says why the kill switch tripped.
type TripReason uint8

// Kill-switch reasons. The zero value means "not tripped".
const (
	_                     TripReason = iota
	TripSessionLoss                  // realized + marked loss since the session start reached the limit
	TripDailyLoss                    // loss since the start of the UTC day reached the limit
	TripDrawdown                     // fall from the PnL high-water mark reached the limit
	TripConsecutiveErrors            // too many order errors in a row
	TripErrorRate                    // error rate over the sliding window above the limit
	TripStaleBook                    // a book older than its maximum age
	TripClockSkew                    // local clock too far from the exchange's
	TripManual                       // an operator or the loop halted quoting
	TripCancelThrottled              // the exchange throttled cancels for too long: quotes cannot be taken down
	TripStaleLoop                    // the loop's guard: no cycle completed for too long
	TripStaleQuotes                  // the loop's guard: live orders rest on books no cycle has seen for too long
	TripAuth                         // the exchange refused the credentials (401 or 403 on an authenticated call)
	tripEnd
)

var tripNames = [...]string{
	"none",
	"session_loss",
	"daily_loss",
	"drawdown",
	"consecutive_errors",
	"error_rate",
	"stale_book",
	"clock_skew",
	"manual",
	"cancel_throttled",
	"stale_loop",
	"stale_quotes",
	"auth",
}

// String returns the reason's stable snake_case name (a metric label).
func (r TripReason) String() string {
	if r >= tripEnd {
		return fmt.Sprintf("trip(%d)", uint8(r))
	}
	return tripNames[r]
}

// Trip records why and when the kill switch tripped.
type Trip struct {
	Reason TripReason
	Detail string
	At     time.Time
}

// ErrTripped matches every *TripError with errors.Is.
var ErrTripped = errors.New("risk: kill switch tripped")

// TripError is the error form of a Trip, returned by KillSwitch.Err.
type TripError struct{ Trip Trip }

// Error implements error.
func (e *TripError) Error() string {
	return fmt.Sprintf("risk: kill switch tripped at %s: %s: %s",
		e.Trip.At.UTC().Format(time.RFC3339), e.Trip.Reason, e.Trip.Detail)
}

// Is makes errors.Is(err, ErrTripped) true.
func (e *TripError) Is(target error) bool { return target == ErrTripped }

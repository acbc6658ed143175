package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
)

// ErrCredentialsRefused matches every *CredentialsError with errors.Is.
var ErrCredentialsRefused = errors.New("the exchange refused the credentials")

// CredentialsError says that the exchange refused the credentials of an
// authenticated call (POST /orders, DELETE /order, GET /data/order/{id})
// with a 401 or 403.
type CredentialsError struct {
	Endpoint string // e.g. "DELETE /order"
	Status   int    // 401 or 403
	Message  string // what the exchange said
	// Live is how many orders the journal holds that may still be live
	// on the exchange; negative when not counted.
	Live int
	Err  error // the refused call's error
}

// Error says what the exchange answered and, when counted, how many
// orders may still be live.
func (e *CredentialsError) Error() string {
	s := fmt.Sprintf("the exchange refused the credentials (HTTP %d: %s)", e.Status, e.Message)
	if e.Live >= 0 {
		s += fmt.Sprintf(": %d orders may still be live", e.Live)
	}
	return s
}

// Is makes errors.Is(err, ErrCredentialsRefused) true.
func (e *CredentialsError) Is(target error) bool { return target == ErrCredentialsRefused }

// Unwrap returns the refused call's error.
func (e *CredentialsError) Unwrap() error { return e.Err }

// refusedCredentials reads a refusal of the credentials out of a venue's
// error: a 401 (exchange.ErrUnauthorized) or a 403 / "unauthorized:
// ip_not_allowlisted" (exchange.ErrIPNotAllowlisted). nil for any other
// error.
func refusedCredentials(endpoint string, err error) *CredentialsError {
	if err == nil {
		return nil
	}
	var status int
	switch {
	case errors.Is(err, exchange.ErrUnauthorized):
		status = 401 // the statuses the sentinels stand for (exchange.APIError.Is)
	case errors.Is(err, exchange.ErrIPNotAllowlisted):
		status = 403
	default:
		return nil
	}
	ce := &CredentialsError{Endpoint: endpoint, Status: status, Message: err.Error(), Live: -1, Err: err}
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		ce.Status, ce.Message = ae.Status, answerText(ae)
	}
	return ce
}

// probeOrderID is the order id CheckCredentials reads: well formed (an
// order hash), and no order can have it.
const probeOrderID = "0x0000000000000000000000000000000000000000000000000000000000000000"

// CheckCredentials proves the venue's credentials with one authenticated
// request that changes nothing: it reads an order that cannot exist. An
// answer "not found" (or, oddly, an order) means the exchange accepted the
// credentials: nil. A 401 or 403 comes back as a *CredentialsError (Live
// negative); any other failure as it came, wrapped.
func CheckCredentials(ctx context.Context, v Venue) error {
	_, err := v.Order(ctx, probeOrderID)
	if err == nil || errors.Is(err, exchange.ErrNotFound) {
		return nil
	}
	if ce := refusedCredentials("GET /data/order/{id}", err); ce != nil {
		return ce
	}
	return fmt.Errorf("checking the credentials (GET /data/order/{id}): %w", err)
}

// MsgCredentialsRefused is the message of the one error line logged per
// distinct refusal of the credentials while the loop runs.
const MsgCredentialsRefused = "the exchange refused the credentials: kill switch tripped (reason auth); nothing can be placed or cancelled until they are fixed. Further refusals are counted, summarized every minute and at shutdown"

// While the credentials are refused, one authenticated call is let out
// authRetryBase after the refusal, then after twice as long each time it
// is refused again, up to authRetryMax; the others fail at once without
// being sent (heldError). An accepted call lets them all out again.
const (
	authRetryBase = time.Second
	authRetryMax  = 30 * time.Second
)

// authWatch watches the answers to the venue's authenticated calls: a
// refusal of the credentials trips the kill switch (risk.TripAuth) and is
// logged once per distinct answer (status and message), with a count; an
// accepted call clears the refusal Shutdown acts on. While refused, it
// holds the authenticated calls back (authRetryBase). It is safe for
// concurrent use: the fan-out and the guard call the venue from their own
// goroutines.
type authWatch struct {
	kill  *risk.KillSwitch // nil: nothing to trip
	clock Clock
	log   zerolog.Logger
	tally errTally

	on atomic.Bool // refused != nil: the fast path of every call reads only this

	mu      sync.Mutex
	refused *CredentialsError // the last refusal, nil once a call was accepted
	wait    time.Duration     // the hold after the last refusal
	next    time.Time         // the next call let out while refused
	held    int               // calls not sent while refused
}

// heldError is the error of an authenticated call not sent because the
// credentials were refused (authWatch.hold); it matches what the refusal
// matched (exchange.ErrUnauthorized, exchange.ErrIPNotAllowlisted).
type heldError struct{ ce *CredentialsError }

func (e *heldError) Error() string {
	return fmt.Sprintf("not sent: the exchange refused the credentials (HTTP %d: %s)", e.ce.Status, e.ce.Message)
}

func (e *heldError) Unwrap() error { return e.ce.Err }

// hold returns nil when an authenticated call may go out now, or the
// heldError it fails with instead. probe is true for the one call let out
// while the credentials are refused: its refusal doubles the hold (the
// refusals of calls already in flight at the first one do not).
func (w *authWatch) hold() (probe bool, err error) {
	if !w.on.Load() {
		return false, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refused == nil {
		return false, nil
	}
	if now := w.clock.Now(); !now.Before(w.next) {
		w.next = now.Add(w.wait) // this one goes; the others wait for its answer
		return true, nil
	}
	w.held++
	return false, &heldError{ce: w.refused}
}

// release lets the next authenticated call out at once (Shutdown's one
// cancel that tells whether the credentials are still refused).
func (w *authWatch) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next = time.Time{}
}

func newAuthWatch(kill *risk.KillSwitch, c Clock, log zerolog.Logger) *authWatch {
	return &authWatch{kill: kill, clock: c, log: log,
		tally: errTally{log: log, msg: "the exchange refused the credentials again"}}
}

// note looks at the error of one authenticated call to endpoint (probe:
// see hold).
func (w *authWatch) note(endpoint string, err error, probe bool) {
	ce := refusedCredentials(endpoint, err)
	if ce == nil {
		if w.on.Load() && (err == nil || errors.Is(err, exchange.ErrNotFound)) { // the exchange knew who asked
			w.mu.Lock()
			w.refused, w.wait, w.next = nil, 0, time.Time{}
			w.on.Store(false)
			w.mu.Unlock()
			w.log.Warn().Msg("the exchange accepts the credentials again (the kill switch stays tripped until SIGUSR1)")
		}
		return
	}
	now := w.clock.Now()
	w.mu.Lock()
	w.refused = ce
	w.on.Store(true)
	switch {
	case w.wait == 0:
		w.wait = authRetryBase
	case probe:
		w.wait = min(2*w.wait, authRetryMax)
	}
	w.next = now.Add(w.wait)
	w.mu.Unlock()
	detail := fmt.Sprintf("the exchange refused the credentials: HTTP %d: %s (%s)", ce.Status, ce.Message, endpoint)
	if w.kill != nil {
		w.kill.Trip(risk.TripAuth, detail, now)
	}
	key := fmt.Sprintf("%d %s", ce.Status, ce.Message)
	if w.tally.add(key, map[string]any{"status": ce.Status, "error": ce.Message}, now) {
		msg := MsgCredentialsRefused
		if w.kill == nil {
			msg = "the exchange refused the credentials"
		}
		w.log.Error().Int("status", ce.Status).Str("error", ce.Message).Str("endpoint", endpoint).Msg(msg)
	}
}

// flush logs the summaries of the refusals, and how many calls were not
// sent while the credentials were refused.
func (w *authWatch) flush(now time.Time) {
	w.tally.flush(now)
	w.mu.Lock()
	held := w.held
	w.held = 0
	w.mu.Unlock()
	if held > 0 {
		w.log.Warn().Int("not_sent", held).Msg("authenticated requests not sent while the exchange refused the credentials")
	}
}

// refusal returns the last refusal, or nil when the last authenticated
// call that got an answer about the credentials was accepted.
func (w *authWatch) refusal() *CredentialsError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refused
}

// authVenue is the loop's venue: the one it was given, with the answers
// to the authenticated calls shown to an authWatch.
type authVenue struct {
	Venue
	w *authWatch
}

func (v authVenue) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	probe, err := v.w.hold()
	if err != nil {
		return nil, err
	}
	res, err := v.Venue.PlaceOrders(ctx, items)
	v.w.note("POST /orders", err, probe)
	return res, err
}

func (v authVenue) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	probe, err := v.w.hold()
	if err != nil {
		return nil, err
	}
	res, err := v.Venue.CancelOrder(ctx, id)
	v.w.note("DELETE /order", err, probe)
	return res, err
}

func (v authVenue) Order(ctx context.Context, id string) (*exchange.Order, error) {
	probe, err := v.w.hold()
	if err != nil {
		return nil, err
	}
	o, err := v.Venue.Order(ctx, id)
	v.w.note("GET /data/order/{id}", err, probe)
	return o, err
}

// notSent reports whether err is that of a call the authWatch held back:
// it never reached the exchange.
func notSent(err error) bool {
	var he *heldError
	return errors.As(err, &he)
}

// isAuthRefusal reports whether err refuses the credentials (the
// authWatch has logged it: the caller need not).
func isAuthRefusal(err error) bool {
	return errors.Is(err, exchange.ErrUnauthorized) || errors.Is(err, exchange.ErrIPNotAllowlisted)
}

// credentialsLive is a CredentialsError for Shutdown: the refusal with the
// count of orders that may still be live.
func credentialsLive(ce *CredentialsError, live int) *CredentialsError {
	c := *ce
	c.Live = live
	return &c
}

package risk

import (
	"fmt"
	"sync"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// KillConfig configures the kill switch. A zero value disables that trigger;
// a negative one is a configuration error.
type KillConfig struct {
	MaxSessionLoss       decimal.Decimal // trip when −PnL since the session start reaches this
	MaxDailyLoss         decimal.Decimal // trip when the loss since the start of the UTC day reaches this
	MaxDrawdown          decimal.Decimal // trip when the fall from the PnL high-water mark reaches this
	MaxConsecutiveErrors int             // trip at this many order errors in a row
	MaxErrorRate         float64         // trip when errors/results over ErrorWindow exceed this (0..1]
	ErrorWindow          time.Duration   // the sliding window of MaxErrorRate
	MinWindowResults     int             // results needed in the window before the rate counts (default 10)
	MaxBookAge           time.Duration   // trip on a book older than this
	MaxClockSkew         time.Duration   // trip when |local − exchange| exceeds this
	// MaxCancelThrottle trips the switch when the exchange throttles
	// cancels (a 429 on DELETE /order) and asks for a wait this long or
	// longer: while cancels are held back the quotes cannot be taken down.
	MaxCancelThrottle time.Duration
	// AutoClearAfter, when set, clears a trip caused by the exchange being
	// away (TripReason.ExchangeAway: stale quotes, a blind loop, stale
	// books, a run of order errors) by itself once the exchange has
	// answered normally (OnExchange) for this long since the trip; other
	// trips stay latched for a human. 0: every trip is latched.
	AutoClearAfter time.Duration
	// AutoClearMaxPerDay caps the automatic clears per UTC day (default 3
	// when AutoClearAfter is set); past it the trip stays for a human.
	AutoClearMaxPerDay int
}

// windowCap bounds the results kept for the error rate; with more results
// than this inside the window, the rate is that of the latest windowCap.
const windowCap = 1024

// Validate reports the first invalid field by name.
func (c KillConfig) Validate() error {
	for _, d := range []struct {
		name string
		v    decimal.Decimal
	}{{"MaxSessionLoss", c.MaxSessionLoss}, {"MaxDailyLoss", c.MaxDailyLoss}, {"MaxDrawdown", c.MaxDrawdown}} {
		if d.v.IsNegative() {
			return fmt.Errorf("risk: kill switch: %s must not be negative, got %s", d.name, d.v)
		}
		if m, err := exchange.FixedRound(d.v, down); err != nil || m == 0 && d.v.IsPositive() {
			return fmt.Errorf("risk: kill switch: %s is out of range: %s", d.name, d.v)
		}
	}
	switch {
	case c.MaxConsecutiveErrors < 0:
		return fmt.Errorf("risk: kill switch: MaxConsecutiveErrors must not be negative, got %d", c.MaxConsecutiveErrors)
	case !(c.MaxErrorRate >= 0 && c.MaxErrorRate <= 1):
		return fmt.Errorf("risk: kill switch: MaxErrorRate must be in [0,1], got %v", c.MaxErrorRate)
	case c.MaxErrorRate > 0 && c.ErrorWindow <= 0:
		return fmt.Errorf("risk: kill switch: ErrorWindow must be positive when MaxErrorRate is set, got %s", c.ErrorWindow)
	case c.ErrorWindow < 0:
		return fmt.Errorf("risk: kill switch: ErrorWindow must not be negative, got %s", c.ErrorWindow)
	case c.MinWindowResults < 0 || c.MinWindowResults > windowCap:
		return fmt.Errorf("risk: kill switch: MinWindowResults must be in [0,%d], got %d", windowCap, c.MinWindowResults)
	case c.MaxBookAge < 0:
		return fmt.Errorf("risk: kill switch: MaxBookAge must not be negative, got %s", c.MaxBookAge)
	case c.MaxClockSkew < 0:
		return fmt.Errorf("risk: kill switch: MaxClockSkew must not be negative, got %s", c.MaxClockSkew)
	case c.MaxCancelThrottle < 0:
		return fmt.Errorf("risk: kill switch: MaxCancelThrottle must not be negative, got %s", c.MaxCancelThrottle)
	case c.AutoClearAfter < 0:
		return fmt.Errorf("risk: kill switch: AutoClearAfter must not be negative, got %s", c.AutoClearAfter)
	case c.AutoClearMaxPerDay < 0:
		return fmt.Errorf("risk: kill switch: AutoClearMaxPerDay must not be negative, got %d", c.AutoClearMaxPerDay)
	}
	return nil
}

type result struct {
	at time.Time
	ok bool
}

// KillSwitch latches the first trip until Reset. It is pure (fed with events
// and their times) and safe for concurrent use.
type KillSwitch struct {
	mu sync.Mutex

	cfg                          KillConfig
	sessionLoss, dailyLoss, draw exchange.Fixed // 0 = off

	tripped bool
	trip    Trip

	consecutive int
	ring        [windowCap]result
	head, n     int // ring[head] is the oldest of n results
	errs        int // errors among the n results

	started  bool
	base     exchange.Fixed // PnL counted as zero loss for the session (moved by Reset)
	last     exchange.Fixed // last PnL seen
	peak     exchange.Fixed // high-water mark
	day      int64          // UTC day number of the last PnL
	dayBase  exchange.Fixed // PnL at the start of that day
	resetBy  string
	lastTrip Trip // the trip cleared by the last Reset

	auto autoClear // automatic clears of exchange-away trips (autoclear.go)
}

// NewKillSwitch validates c and returns an untripped switch.
func NewKillSwitch(c KillConfig) (*KillSwitch, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.MinWindowResults == 0 {
		c.MinWindowResults = 10
	}
	if c.AutoClearAfter > 0 && c.AutoClearMaxPerDay == 0 {
		c.AutoClearMaxPerDay = DefaultAutoClearMaxPerDay
	}
	k := &KillSwitch{cfg: c}
	k.sessionLoss = round(c.MaxSessionLoss, down)
	k.dailyLoss = round(c.MaxDailyLoss, down)
	k.draw = round(c.MaxDrawdown, down)
	return k, nil
}

// tripLocked latches the first trip; later ones are ignored.
func (k *KillSwitch) tripLocked(r TripReason, now time.Time, format string, a ...any) {
	if k.tripped {
		return
	}
	k.tripped = true
	k.trip = Trip{Reason: r, Detail: fmt.Sprintf(format, a...), At: now}
	k.auto.tripAway = k.auto.away(r, k.consecutive)
}

// Tripped reports whether the switch is tripped and, if so, why.
func (k *KillSwitch) Tripped() (bool, Trip) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.tripped, k.trip
}

// Err returns nil, or a *TripError while the switch is tripped.
func (k *KillSwitch) Err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.tripped {
		return nil
	}
	return &TripError{Trip: k.trip}
}

// Halt trips the switch by hand (reason TripManual).
func (k *KillSwitch) Halt(detail string, now time.Time) {
	k.Trip(TripManual, detail, now)
}

// Trip trips the switch for reason r, unless it is already tripped, and
// reports whether this call tripped it. It is for triggers that watch from
// outside the switch's own feeds (an operator's Halt, the loop's guard).
// An invalid reason trips it as TripManual.
//
// TripAuth is the one exception to "the first trip is latched": it
// replaces a trip of any other reason (and reports true). With refused
// credentials nothing can be placed or cancelled, so whatever else went
// wrong, that is what the operator must see first (readiness, metrics).
func (k *KillSwitch) Trip(r TripReason, detail string, now time.Time) bool {
	if r == 0 || r >= tripEnd {
		r = TripManual
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tripped {
		if r != TripAuth || k.trip.Reason == TripAuth {
			return false
		}
		k.tripped = false // superseded: see above
	}
	k.tripLocked(r, now, "%s", detail)
	return true
}

// Reset clears a trip on an operator's word and returns the trip it cleared
// (the zero Trip when it was not tripped). It also clears the error counters
// and moves the loss baselines (session, day and high-water mark) to the
// last PnL seen: the operator has acknowledged the loss so far, and the
// limits count again from here.
func (k *KillSwitch) Reset(by string) Trip {
	k.mu.Lock()
	defer k.mu.Unlock()
	cleared := k.trip
	k.tripped, k.trip = false, Trip{}
	k.consecutive, k.head, k.n, k.errs = 0, 0, 0, 0
	k.base, k.dayBase, k.peak = k.last, k.last, k.last
	k.resetBy, k.lastTrip = by, cleared
	k.auto.capLogged = false
	return cleared
}

// LastReset returns who made the last Reset and the trip it cleared.
func (k *KillSwitch) LastReset() (by string, cleared Trip) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.resetBy, k.lastTrip
}

// OnOrderResult records the outcome of one order call (a placement or a
// cancel): ok false for an error.
func (k *KillSwitch) OnOrderResult(ok bool, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.auto.noteResult(ok, false)
	k.orderResultLocked(ok, now)
}

// OnOrderFailure records a failed order call, and whether it failed because
// the exchange was away (no answer, a server error): a trip for a run of
// such failures may clear by itself (AutoClear), one for refusals may not.
func (k *KillSwitch) OnOrderFailure(away bool, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.auto.noteResult(false, away)
	k.orderResultLocked(false, now)
}

func (k *KillSwitch) orderResultLocked(ok bool, now time.Time) {
	if ok {
		k.consecutive = 0
	} else {
		k.consecutive++
		if m := k.cfg.MaxConsecutiveErrors; m > 0 && k.consecutive >= m {
			k.tripLocked(TripConsecutiveErrors, now, "%d order errors in a row (limit %d)", k.consecutive, m)
		}
	}
	if k.cfg.MaxErrorRate <= 0 {
		return
	}
	k.evictLocked(now)
	if k.n == windowCap {
		k.dropOldestLocked()
	}
	k.ring[(k.head+k.n)%windowCap] = result{at: now, ok: ok}
	k.n++
	if !ok {
		k.errs++
	}
	if k.n >= k.cfg.MinWindowResults {
		if rate := float64(k.errs) / float64(k.n); rate > k.cfg.MaxErrorRate {
			k.tripLocked(TripErrorRate, now, "%d errors in %d results over %s (rate %.2f > %.2f)",
				k.errs, k.n, k.cfg.ErrorWindow, rate, k.cfg.MaxErrorRate)
		}
	}
}

func (k *KillSwitch) evictLocked(now time.Time) {
	cut := now.Add(-k.cfg.ErrorWindow)
	for k.n > 0 && !k.ring[k.head].at.After(cut) {
		k.dropOldestLocked()
	}
}

func (k *KillSwitch) dropOldestLocked() {
	if !k.ring[k.head].ok {
		k.errs--
	}
	k.head = (k.head + 1) % windowCap
	k.n--
}

// OnPnL records the session's realized + marked PnL (since the session
// start, in collateral) at now.
func (k *KillSwitch) OnPnL(pnl decimal.Decimal, now time.Time) {
	p := round(pnl, down)
	day := dayNumber(now)
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.started {
		k.started, k.day = true, day
	} else if day != k.day {
		k.day, k.dayBase = day, k.last
	}
	k.last = p
	k.peak = max(k.peak, p)
	if loss := k.base - p; k.sessionLoss > 0 && loss >= k.sessionLoss {
		k.tripLocked(TripSessionLoss, now, "session loss %s reached limit %s", loss, k.sessionLoss)
	}
	if loss := k.dayBase - p; k.dailyLoss > 0 && loss >= k.dailyLoss {
		k.tripLocked(TripDailyLoss, now, "daily loss %s reached limit %s", loss, k.dailyLoss)
	}
	if dd := k.peak - p; k.draw > 0 && dd >= k.draw {
		k.tripLocked(TripDrawdown, now, "drawdown %s from high %s reached limit %s", dd, k.peak, k.draw)
	}
}

// Losses are how far the last PnL seen (OnPnL) is below the baselines of
// the three PnL triggers, in collateral; each is zero when the PnL is at or
// above its baseline, and zero before the first OnPnL.
type Losses struct {
	Session  decimal.Decimal // below the session start (moved by Reset): MaxSessionLoss
	Daily    decimal.Decimal // below the start of the UTC day (moved by Reset): MaxDailyLoss
	Drawdown decimal.Decimal // below the high-water mark (moved by Reset): MaxDrawdown
}

// Losses returns the figures the PnL triggers compare with their limits,
// for metrics: an operator sees how close a trip is.
func (k *KillSwitch) Losses() Losses {
	k.mu.Lock()
	defer k.mu.Unlock()
	loss := func(base exchange.Fixed) decimal.Decimal { return max(base-k.last, 0).Decimal() }
	return Losses{Session: loss(k.base), Daily: loss(k.dayBase), Drawdown: loss(k.peak)}
}

// OnBookAge records the age of a market's book at now (how long since the
// exchange's timestamp on it).
func (k *KillSwitch) OnBookAge(market string, age time.Duration, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if m := k.cfg.MaxBookAge; m > 0 && age > m {
		k.tripLocked(TripStaleBook, now, "book of %s is %s old (max %s)", market, age.Round(time.Millisecond), m)
	}
}

// OnClockSkew records the measured difference between the local clock and
// the exchange's.
func (k *KillSwitch) OnClockSkew(skew time.Duration, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if m := k.cfg.MaxClockSkew; m > 0 && (skew > m || skew < -m) {
		k.tripLocked(TripClockSkew, now, "clock skew %s (max %s)", skew.Round(time.Millisecond), m)
	}
}

// OnCancelThrottled records that the exchange throttled cancels and asked
// for a wait of wait before the next one (its Retry-After, before any cap).
func (k *KillSwitch) OnCancelThrottled(wait time.Duration, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if m := k.cfg.MaxCancelThrottle; m > 0 && wait >= m {
		k.tripLocked(TripCancelThrottled, now, "the exchange throttled cancels for %s (limit %s): quotes cannot be taken down", wait, m)
	}
}

// dayNumber is the UTC calendar day of t, counted from the Unix epoch.
func dayNumber(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return d
}

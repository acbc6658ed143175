package risk

import "time"

// DefaultAutoClearMaxPerDay is KillConfig.AutoClearMaxPerDay's default.
const DefaultAutoClearMaxPerDay = 3

// ExchangeAway reports whether a trip for r can be caused by the exchange
// being away (restarting, unreachable, answering 5xx or 425): the loop's
// guard (stale quotes, a blind loop), stale books and a run of order
// errors — those only when the errors were the exchange's absence
// (OnOrderFailure with away set), not refusals. Such a trip may clear by
// itself (KillConfig.AutoClearAfter); the others (losses, clock skew,
// throttled cancels, refused credentials, an operator's halt) stay latched
// for a human.
func (r TripReason) ExchangeAway() bool {
	switch r {
	case TripStaleLoop, TripStaleQuotes, TripStaleBook, TripConsecutiveErrors, TripErrorRate:
		return true
	}
	return false
}

// autoClear is the kill switch's record of the exchange's health and of
// its automatic clears; guarded by KillSwitch.mu.
type autoClear struct {
	healthySince time.Time // zero while the exchange is not answering normally
	day          int64     // UTC day of clearsToday
	clearsToday  int
	total        int
	capLogged    bool // the cap was reported for the current trip
	awayRun      int  // order failures in a row caused by the exchange being away
	lastAway     bool // the last order failure was caused by the exchange being away
	tripAway     bool // the current trip was caused by the exchange being away
}

// noteResult follows the order results: ok, or failed (away: because the
// exchange was away).
func (a *autoClear) noteResult(ok, away bool) {
	switch {
	case ok:
		a.awayRun = 0
	case away:
		a.awayRun++
		a.lastAway = true
	default:
		a.awayRun, a.lastAway = 0, false
	}
}

// away reports whether a trip for r, with consecutive order errors in a
// row, is caused by the exchange being away: the error trips only when the
// errors were (all of the run; the latest for the rate).
func (a *autoClear) away(r TripReason, consecutive int) bool {
	switch r {
	case TripConsecutiveErrors:
		return a.awayRun >= consecutive
	case TripErrorRate:
		return a.lastAway
	}
	return r.ExchangeAway()
}

// OnExchange records whether the exchange answered normally at now (the
// loop's reads went through), or not (unreachable, 5xx, 425).
func (k *KillSwitch) OnExchange(healthy bool, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case !healthy:
		k.auto.healthySince = time.Time{}
	case k.auto.healthySince.IsZero():
		k.auto.healthySince = now
	}
}

// AutoClearResult is what AutoClear did.
type AutoClearResult struct {
	Cleared Trip // the trip cleared (the zero Trip when none)
	// Capped is set, once per trip, when a trip would have cleared but the
	// day's automatic clears are used up: it stays for a human.
	Capped     bool
	ClearsLeft int // automatic clears left today, after this one
}

// AutoClear clears a trip caused by the exchange being away once the
// exchange has answered normally for KillConfig.AutoClearAfter since the
// trip, within KillConfig.AutoClearMaxPerDay clears per UTC day. Like
// Reset it clears the error counters; unlike Reset it leaves the loss
// baselines where they are (no loss was acknowledged).
func (k *KillSwitch) AutoClear(now time.Time) AutoClearResult {
	k.mu.Lock()
	defer k.mu.Unlock()
	a := &k.auto
	after := k.cfg.AutoClearAfter
	if !k.tripped || after <= 0 || !a.tripAway || a.healthySince.IsZero() {
		return AutoClearResult{}
	}
	since := a.healthySince
	if k.trip.At.After(since) {
		since = k.trip.At
	}
	if now.Sub(since) < after {
		return AutoClearResult{}
	}
	if day := dayNumber(now); day != a.day {
		a.day, a.clearsToday = day, 0
	}
	if a.clearsToday >= k.cfg.AutoClearMaxPerDay {
		if a.capLogged {
			return AutoClearResult{}
		}
		a.capLogged = true
		return AutoClearResult{Capped: true}
	}
	cleared := k.trip
	k.tripped, k.trip = false, Trip{}
	k.consecutive, k.head, k.n, k.errs = 0, 0, 0, 0
	a.clearsToday++
	a.total++
	a.capLogged = false
	return AutoClearResult{Cleared: cleared, ClearsLeft: k.cfg.AutoClearMaxPerDay - a.clearsToday}
}

// AutoClears returns how many trips cleared by themselves since the start.
func (k *KillSwitch) AutoClears() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.auto.total
}

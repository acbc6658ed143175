package daemon

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// The observer's metrics beyond the cycle's counts: cycle health, answers
// that refuse our credentials, the rate caps and what the client let out,
// the kill switch's trips and drawdown with the limits they are held to,
// and markouts. configs/monitoring's dashboard and alerts read them.

// requestDone counts the answers that refuse our credentials (401, 403).
func (o *observer) requestDone(_ string, status int, _ time.Duration) {
	if o.m != nil && (status == http.StatusUnauthorized || status == http.StatusForbidden) {
		o.m.AuthFailures.WithLabelValues(strconv.Itoa(status)).Inc()
	}
}

// watchRisk makes the observer report k's trips and drawdown, and sets the
// limit gauges from r (the kill switch is built from r once; SIGHUP does not
// change it).
func (o *observer) watchRisk(k *risk.KillSwitch, r *configs.Risk) {
	o.kill, o.dailyDrawdown = k, r.DrawdownWindow == "day"
	if o.m != nil {
		o.m.MaxDrawdown.Set(r.MaxDrawdown.InexactFloat64())
		o.m.MaxBookAge.Set(r.MaxBookAge.Std().Seconds())
	}
}

// observeCycleEnd records whether the cycle completed: the time of the last
// one without error, which the "no completed cycle" alert watches, or one
// more error.
func observeCycleEnd(m *metrics.Metrics, r *loop.CycleReport) {
	if r.Err != nil {
		m.CycleErrors.Inc()
		return
	}
	m.LastCycle.Set(unixSeconds(r.Start.Add(r.Duration)))
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// observeKill counts each new trip of the kill switch by reason and sets the
// drawdown the switch compares with risk.max_drawdown.
func (o *observer) observeKill(m *metrics.Metrics) {
	if o.kill == nil {
		return
	}
	if tripped, trip := o.kill.Tripped(); tripped {
		o.countTrip(m, trip.Reason, trip.At)
	}
	l := o.kill.Losses()
	dd := l.Drawdown
	if o.dailyDrawdown {
		dd = l.Daily
	}
	m.Drawdown.Set(dd.InexactFloat64())
}

// countTrip counts the trip of the kill switch at at by its reason, unless
// it is the trip counted last (the cycle and the guard both report it).
func (o *observer) countTrip(m *metrics.Metrics, reason risk.TripReason, at time.Time) {
	o.tripMu.Lock()
	defer o.tripMu.Unlock()
	if o.tripCounted && at.Equal(o.lastTrip) {
		return
	}
	o.tripCounted, o.lastTrip = true, at
	m.KillSwitchTrips.WithLabelValues(reason.String()).Inc()
}

// observeBuckets sets each rate-limit bucket's use and cap, and adds what it
// let out since the last cycle.
func (o *observer) observeBuckets(m *metrics.Metrics, now time.Time) {
	if o.buckets == nil {
		return
	}
	if o.admitted == nil {
		o.admitted = map[string]uint64{}
	}
	for _, b := range o.buckets(now) {
		inUse := 0.0
		if b.Burst > 0 {
			inUse = 1 - b.Tokens/float64(b.Burst)
		}
		m.TokensInUse.WithLabelValues(b.Name).Set(inUse)
		if w := b.Cap.Window.Seconds(); w > 0 {
			m.RateCap.WithLabelValues(b.Name).Set(float64(b.Cap.Requests) / w)
		}
		c := m.RateAdmitted.WithLabelValues(b.Name) // at 0 from the first cycle
		if prev := o.admitted[b.Name]; b.Admitted > prev {
			c.Add(float64(b.Admitted - prev))
		}
		o.admitted[b.Name] = b.Admitted
	}
}

// observeBookAges sets the book age of each quoted market; a stopped market
// (closed, or no longer quoted) reads no books, so its series is removed
// instead of growing for ever.
func observeBookAges(m *metrics.Metrics, st *loop.Status) {
	for _, ms := range st.Markets {
		if ms.Stopped != "" {
			m.BookAgeSeconds.DeleteLabelValues(ms.ConditionID)
			continue
		}
		m.BookAgeSeconds.WithLabelValues(ms.ConditionID).Set(ms.BookAge.Seconds())
	}
}

// observeMarkouts counts the markouts the loop measured in the cycle, per
// horizon (every horizon's series exists from the first cycle, at 0).
func (o *observer) observeMarkouts(m *metrics.Metrics, r *loop.CycleReport) {
	gain, loss, shares := markoutSums(r.Markouts)
	for i, h := range strategy.MarkoutHorizons {
		l := horizonLabel(h)
		m.MarkoutGain.WithLabelValues(l).Add(gain[i])
		m.MarkoutLoss.WithLabelValues(l).Add(loss[i])
		m.MarkoutShares.WithLabelValues(l).Add(shares[i])
	}
}

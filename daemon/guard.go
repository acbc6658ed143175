package daemon

import (
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy/loop"
)

// onBlind hears the guard's reason before its cancels go out: /readyz
// fails from that moment, not only once the cancels have come back.
func (d *Daemon) onBlind(reason risk.TripReason, detail string) {
	d.health.SetReady(false, "guard: "+reason.String()+": "+detail)
}

// onGuard hears every look of the guard (on its goroutine). While the loop
// is blind /readyz fails with the guard's reason, even though no cycle
// completes to say so; trips and the cancels the guard got confirmed go to
// the metrics.
func (d *Daemon) onGuard(rep loop.GuardReport) {
	if rep.Reason == 0 {
		return
	}
	d.health.SetReady(false, "guard: "+rep.Reason.String()+": "+rep.Detail)
	if m := d.obs.m; m != nil {
		if rep.Tripped {
			m.KillSwitch.Set(1)
			d.obs.countTrip(m, rep.Reason, rep.At) // once: the next cycle's observeKill sees the same trip
		}
		m.OrdersCancelled.Add(float64(rep.Cancelled))
	}
}

package daemon

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/exchange"
)

// startRetry is the wait for an exchange that cannot be reached at start,
// as [exchange.start_retry] configures it.
func (d *Daemon) startRetry() *startRetry {
	s := &d.cfg.Exchange.StartRetry
	return &startRetry{base: s.BaseDelay.Std(), max: s.MaxDelay.Std(), giveUp: s.GiveUpAfter.Std(), clock: exchange.SystemClock{}, log: d.log,
		status: func(msg string) {
			_ = d.notify.Status(msg)
			d.health.SetReady(false, msg)
		},
		extend: func(t time.Duration) { _ = d.notify.ExtendTimeout(t) }}
}

// onCycle runs after every cycle: the watchdog is petted only while cycles
// complete, readiness follows the kill switch.
func (d *Daemon) onCycle(err error) {
	st := d.loop.Status()
	d.status.sample(time.Now())
	if err == nil {
		_ = d.notify.Watchdog()
	}
	if st.Tripped {
		d.health.SetReady(false, "kill switch: "+st.TripReason)
	} else {
		d.health.SetReady(true, "")
	}
	if st.Tally.Cycles%10 == 1 {
		_ = d.notify.Status(fmt.Sprintf("%d markets, %d live orders, %d fills, pnl %s", len(st.Markets), st.LiveOrders, st.Tally.Fills, status.Signed(st.Tally.MarkedPnL)))
	}
}

// handleSignals reloads strategy parameters on SIGHUP (an invalid new config
// is rejected and the old one kept) and resets the kill switch on SIGUSR1.
func (d *Daemon) handleSignals(ctx context.Context) func() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case s := <-ch:
				switch s {
				case syscall.SIGHUP:
					d.reloadParams()
				case syscall.SIGUSR1:
					t := d.kill.Reset("SIGUSR1")
					d.log.Warn().Str("cleared", t.Reason.String()).Msg("kill switch reset by operator")
				}
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		<-done
	}
}

func (d *Daemon) reloadParams() {
	_ = d.notify.Reloading(monotonic())
	defer func() { _ = d.notify.Ready() }()
	cfg, err := d.opt.reload()
	if err != nil {
		d.log.Error().Err(err).Msg("SIGHUP: new configuration rejected; keeping the old one")
		return
	}
	p, _, err := assemble.StrategyParams(cfg)
	if err != nil {
		d.log.Error().Err(err).Msg("SIGHUP: new strategy parameters rejected; keeping the old ones")
		return
	}
	if err := d.loop.SetParams(p); err != nil {
		d.log.Error().Err(err).Msg("SIGHUP: new strategy parameters rejected; keeping the old ones")
		return
	}
	d.status.setLimit(cfg.Risk.MaxCollateralAtRisk)
	d.log.Info().Msg("SIGHUP: strategy parameters will apply from the next cycle")
}

// showStatus prints the status table every 5 seconds on stdout when it is
// a terminal (or --status on; WithStatusTable): the table of `mmbot status`.
func (d *Daemon) showStatus(ctx context.Context) func() {
	if !d.opt.statusTable {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-t.C:
				doc := d.status.doc(time.Now())
				fmt.Fprintln(d.opt.out)
				_ = doc.WriteTable(d.opt.out, time.Local)
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// monotonic reads CLOCK_MONOTONIC, which systemd's RELOADING=1 wants.
func monotonic() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

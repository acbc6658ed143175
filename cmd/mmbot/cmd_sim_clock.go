package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/scoreboard"
	"github.com/mmbot/mmbot/exchange/sim"
)

// simulateClock runs "mmbot sim --simulated-clock D": no server, the
// exchange's flow on its manual clock for D of simulated time, as fast as
// the machine goes, recorded to --record. The clock starts at
// scoreboard.Epoch, so that the recording depends only on the flags.
func simulateClock(e *env, f simFlags) error {
	if f.record == "" {
		return usagef("--simulated-clock needs --record: the recording is what it makes")
	}
	cfg, err := simClockConfig(f)
	if err != nil {
		return err
	}
	format, err := recordingFormat(f.record, f.recordFormat)
	if err != nil {
		return err
	}
	w, err := recording.NewWriter(f.record, recording.WithSource("mmbot sim --simulated-clock"), recording.WithFormat(format))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = scoreboard.Simulate(ctx, cfg, f.simClock, func(ev []recording.Event) error {
		for _, x := range ev {
			if err := w.Write(x); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = w.Abort()
		return fmt.Errorf("simulated clock: %w", err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "recorded     %d events (%s of simulated market, seed %d) to %s\n", w.Count(), f.simClock, f.seed, f.record)
	return nil
}

// simClockConfig is the exchange of --simulated-clock: a scoreboard
// scenario's with --scenario (the same recording as the scoreboard's with
// the same --seed, --markets and duration), else the flags' on the manual
// clock.
func simClockConfig(f simFlags) (sim.Config, error) {
	if f.scenario != "" {
		all := scoreboard.Scenarios(scoreboard.Options{Seed: f.seed, Markets: f.markets, Duration: f.simClock})
		sc, err := scoreboard.Pick(all, []string{f.scenario})
		if err != nil {
			return sim.Config{}, usagef("--scenario: %v", err)
		}
		if sc[0].Duration != f.simClock {
			return sim.Config{}, usagef("--scenario %s runs %s, not the --simulated-clock %s", f.scenario, sc[0].Duration, f.simClock)
		}
		return sc[0].SimConfig()
	}
	cfg, err := f.config(scoreboard.Epoch)
	if err != nil {
		return cfg, err
	}
	cfg.Start, cfg.Manual, cfg.NoRateLimits = scoreboard.Epoch, true, true
	cfg.WallClock = func() time.Time { return scoreboard.Epoch }
	return cfg, nil
}

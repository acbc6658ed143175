package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/strategy/loop"
)

// RunConfig configures Run.
type RunConfig struct {
	// Loop is the strategy loop's configuration (model, tolerance, risk,
	// kill switch, cycle). Its Markets are replaced by Replay.Markets.
	Loop loop.Config
	// Replay configures the venue and clock; Replay.Markets must be set
	// (ScanMarkets finds them).
	Replay Config
	// Accumulator configures the metrics. The fill mode, queue model,
	// latency and seed of its RunInfo are taken from Replay.Matcher.
	Accumulator accounting.AccumulatorConfig
	// Log receives the loop's log (zerolog.Nop() for none).
	Log zerolog.Logger
}

// Run replays src through the strategy loop, the same code the daemon runs
// (Start, then cycles until the recording ends), and returns the results.
// Sharing nothing between calls, runs may go in parallel.
func Run(ctx context.Context, src Source, cfg RunConfig) (*accounting.Results, error) {
	if len(cfg.Replay.Markets) == 0 {
		return nil, errors.New("backtest: no market to replay")
	}
	ac := cfg.Accumulator
	mc := cfg.Replay.Matcher
	ac.Run.Mode, ac.Run.Queue, ac.Run.Latency, ac.Run.Seed = mc.Mode, mc.Queue, mc.Latency, mc.Seed
	acc := accounting.NewAccumulator(ac)
	rp, err := New(src, cfg.Replay, acc)
	if err != nil {
		return nil, err
	}
	lc := cfg.Loop
	lc.Markets = rp.Markets()
	lc.SkipStatus = true // nothing reads it
	l, err := loop.New(lc, rp, &Signer{}, NewMemJournal(), rp, cfg.Log, nil)
	if err != nil {
		return nil, fmt.Errorf("backtest: %w", err) // "loop: ..." names it
	}
	if err := l.Start(ctx); err != nil {
		return nil, fmt.Errorf("backtest: loop start: %w", err)
	}
	if err := l.Run(ctx, nil); err != nil {
		return nil, fmt.Errorf("backtest: loop: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := rp.Err(); err != nil {
		return nil, err
	}
	return acc.Finish(rp.End())
}

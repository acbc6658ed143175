package scoreboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Setup is one run's model, built fresh for each run (models, estimators
// and the kill switch keep state).
type Setup struct {
	// Loop is the loop's configuration; its Markets are the scenario's.
	Loop loop.Config
	// Matcher is the fill model's latency and queue model; Run sets the
	// mode and the seed.
	Matcher fillmodel.MatcherConfig
	// Limits are the client's rate caps (nil: exchange.DefaultLimits()).
	Limits *exchange.Limits
	// Fees price the fills.
	Fees fillmodel.Fees
	// MaxPosition and MaxTotalPosition are the risk limits a run must
	// never breach (risk.max_position, risk.max_total_position; zero: no
	// limit): see Row.Breaches.
	MaxPosition, MaxTotalPosition decimal.Decimal
}

// Builder builds the Setup of a model by name, with the scenario's
// configuration settings ("key=value", see Scenario.Settings) applied.
type Builder func(model string, settings []string) (*Setup, error)

// Config configures Run.
type Config struct {
	Scenarios []Scenario
	Models    []string         // in table order
	Modes     []fillmodel.Mode // in table order
	Build     Builder
	// Seed is the fill model's seed (latency draws, sampled queues) of the
	// first replica; replica k uses Seed + k.
	Seed uint64
	// Seeds is the number of replicas of every scenario (at least 1):
	// replica k runs the scenario with its seed + k × SeedStride, so the
	// statistics are over K independent markets.
	Seeds int
	// Workers run scenarios and replays in parallel (at least 1); the
	// rows do not depend on it.
	Workers int
	// Progress, when set, receives one line per finished step.
	Progress io.Writer
}

// SeedStride separates the seeds of a scenario's replicas.
const SeedStride = 7919

// Run generates the recording of every replica of every scenario and
// replays it through every model under every fill mode. The rows are in
// the order scenario, replica, model, mode.
func Run(ctx context.Context, cfg Config) ([]Row, error) {
	if cfg.Build == nil || len(cfg.Scenarios) == 0 || len(cfg.Models) == 0 || len(cfg.Modes) == 0 {
		return nil, errors.New("scoreboard: a builder, scenarios, models and fill modes are required")
	}
	for i := range cfg.Scenarios {
		if err := cfg.Scenarios[i].Validate(); err != nil {
			return nil, err
		}
	}
	workers := max(1, cfg.Workers)
	seeds := max(1, cfg.Seeds)
	// reps are the scenarios' replicas, replica k of scenario i at
	// i*seeds + k.
	reps := make([]Scenario, 0, len(cfg.Scenarios)*seeds)
	for _, s := range cfg.Scenarios {
		for k := 0; k < seeds; k++ {
			r := s
			r.Seed += uint64(k) * SeedStride
			reps = append(reps, r)
		}
	}
	prog := &progress{w: cfg.Progress}
	tapes := make([][]recording.Event, len(reps))
	markets := make([]*replay.MarketScan, len(reps))
	prog.total = len(reps)
	err := parallel(ctx, len(reps), workers, func(ctx context.Context, i int) error {
		s := reps[i]
		ev, err := Generate(ctx, s)
		if err != nil {
			return err
		}
		scan, err := replay.ScanMarkets(&replay.SliceSource{Events: ev})
		if err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if len(scan.Markets) == 0 {
			return fmt.Errorf("scenario %s: no open market", s.Name)
		}
		tapes[i], markets[i] = ev, scan
		prog.done("generated %s: %s of market, %d events", s.Name, s.Duration, len(ev))
		return nil
	})
	if err != nil {
		return nil, err
	}
	type job struct{ s, m, f int }
	var jobs []job
	for s := range reps {
		for m := range cfg.Models {
			for f := range cfg.Modes {
				jobs = append(jobs, job{s, m, f})
			}
		}
	}
	rows := make([]Row, len(jobs))
	prog.reset(len(jobs))
	err = parallel(ctx, len(jobs), workers, func(ctx context.Context, i int) error {
		j := jobs[i]
		sc, model, mode := &reps[j.s], cfg.Models[j.m], cfg.Modes[j.f]
		rep := j.s % seeds
		set, err := cfg.Build(model, sc.Settings)
		if err != nil {
			return fmt.Errorf("model %s: %w", model, err)
		}
		res, err := replayOne(ctx, tapes[j.s], markets[j.s], set, mode, cfg.Seed+uint64(rep))
		if err != nil {
			return fmt.Errorf("scenario %s (seed %d), model %s, %s fills: %w", sc.Name, sc.Seed, model, mode, err)
		}
		rows[i] = measure(sc, model, mode, res, markets[j.s], set)
		rows[i].Rep = rep
		prog.done("ran %s (seed %d) %s %s", sc.Name, sc.Seed, model, mode)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// replayOne replays one recording through one model.
func replayOne(ctx context.Context, events []recording.Event, scan *replay.MarketScan, set *Setup, mode fillmodel.Mode, seed uint64) (*accounting.Results, error) {
	mc := set.Matcher
	mc.Mode, mc.Seed = mode, seed
	caps := accounting.RateCaps{}
	if set.Limits != nil {
		caps = accounting.RateCaps{Orders10s: set.Limits.PostOrderBurst.Requests, Orders10m: set.Limits.PostOrderSustained.Requests,
			Cancels10s: set.Limits.DeleteOrderBurst.Requests, Cancels10m: set.Limits.DeleteOrderSustained.Requests}
	}
	return replay.Run(ctx, &replay.SliceSource{Events: events}, replay.RunConfig{
		Loop:        set.Loop,
		Replay:      replay.Config{Markets: scan.Markets, Matcher: mc, Limits: set.Limits},
		Accumulator: accounting.AccumulatorConfig{Interval: time.Minute, Caps: caps, Run: accounting.RunInfo{Fees: set.Fees}},
		Log:         zerolog.Nop(),
	})
}

// parallel runs fn(i) for i in [0, n) on up to workers goroutines and
// returns the first error (by index), after every started call returned.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = fn(ctx, i); errs[i] != nil {
					cancel()
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return ctx.Err()
}

// progress writes one line per finished step: "scoreboard: [3/42] ...".
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	n, total int
}

func (p *progress) reset(total int) {
	p.mu.Lock()
	p.n, p.total = 0, total
	p.mu.Unlock()
}

func (p *progress) done(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	fmt.Fprintf(p.w, "scoreboard: [%d/%d] %s\n", p.n, p.total, fmt.Sprintf(format, args...))
}

package main

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/backtest/recorder"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/internal/logging"
	"github.com/mmbot/mmbot/strategy"
)

const recordLong = `Records the books and trades of the markets that mmbot run would quote
(the [markets] section) into a recording for mmbot backtest
(docs/data-format.md). It writes one meta event per token, then polls
POST /books and the data API's GET /trades every --interval within the
configured rate limits, and writes a book only when it changed and each
trade once. SIGINT, SIGTERM or --duration end it; the file is committed
atomically, so it is complete or absent.`

const recordExample = `  mmbot record -c mmbot.toml --out rec.jsonl.gz --duration 10m
  mmbot record -c mmbot.toml --out rec.jsonl.gz --interval 500ms    # until Ctrl-C`

// recordFlags are the record command's own flags.
type recordFlags struct {
	out      string
	duration time.Duration
	interval time.Duration
}

func newRecordCmd(e *env) *cobra.Command {
	var rf recordFlags
	cmd := &cobra.Command{
		Use:     "record -c mmbot.toml --out rec.jsonl.gz [flags]",
		Short:   "record books and trades of the configured markets",
		Long:    recordLong,
		Example: recordExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	configs.RegisterFlags(fs)
	fs.StringVar(&rf.out, "out", "", "write the recording to this `file` (.jsonl.gz)")
	fs.DurationVar(&rf.duration, "duration", 0, "stop after this long (0: until SIGINT or SIGTERM)")
	fs.DurationVar(&rf.interval, "interval", time.Second, "time between two polls")
	cmd.RunE = func(*cobra.Command, []string) error { return runRecord(e, fs, rf) }
	return cmd
}

// runRecord runs "mmbot record" once its flags are parsed into fs and rf.
func runRecord(e *env, fs *pflag.FlagSet, rf recordFlags) error {
	switch {
	case rf.out == "":
		return usagef("--out is required")
	case rf.duration < 0:
		return usagef("--duration must not be negative")
	case rf.interval <= 0:
		return usagef("--interval must be positive")
	}
	cfg, err := configs.Load(configs.LoadOptions{Environ: e.environ, Flags: fs})
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	log, err := logging.New(logging.Options{Level: cfg.Log.Level, Format: cfg.Log.Format, Out: e.stderr, IsTerminal: isTerminal(e.stderr)})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// The exchange: embedded simulator or configured URLs. Only public reads
	// are made, so no account is needed.
	urls, _, stopExchange, err := endpoints(cfg)
	if err != nil {
		return err
	}
	defer stopExchange()
	obs := &observer{log: log}
	client, err := newClient(cfg, urls, nil, obs.clientObserver())
	if err != nil {
		return fmt.Errorf("exchange client: %w", err)
	}
	markets, err := selectMarkets(ctx, client, &cfg.Markets, obs.marketRefused)
	if err != nil {
		return err
	}
	rms := make([]recorder.Market, 0, len(markets))
	for _, m := range markets {
		log.Info().Str("market", m.ConditionID).Str("slug", m.Slug).Str("tick", m.Tick.String()).Msg("recording")
		rms = append(rms, recordMarket(m))
	}

	w, err := recording.NewWriter(rf.out, recording.WithSource("mmbot record"))
	if err != nil {
		return err
	}
	rec, err := recorder.New(client, w, recorder.Config{Markets: rms, Interval: rf.interval, Log: log})
	if err != nil {
		_ = w.Abort()
		return err
	}
	runCtx := ctx
	if rf.duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, rf.duration)
		defer cancel()
	}
	start := time.Now()
	// The compressed size lags by what gzip buffers (0 B for the first tens
	// of KiB): progress shows the size of the JSON lines written.
	stopProgress := showProgress(runCtx, e.stderr, isTerminal(e.stderr), func() string {
		return progressLine(rec.Stats(), w.DataBytes(), time.Since(start))
	}, func(s string) { log.Info().Msg(s) })
	runErr := rec.Run(runCtx)
	stopProgress()
	if runErr != nil {
		_ = w.Abort()
		return fmt.Errorf("recording aborted, nothing written to %s: %w", rf.out, runErr)
	}
	if err := w.Close(); err != nil {
		return err
	}
	st := rec.Stats()
	fmt.Fprintf(e.stdout, "recorded %s to %s (%s gzipped)\n", progressLine(st, w.DataBytes(), time.Since(start)), rf.out, humanBytes(w.Bytes()))
	if st.Errors > 0 || st.Gaps > 0 || st.Dropped > 0 || st.Skipped > 0 {
		fmt.Fprintf(e.stdout, "  %d failed reads, %d trade reads that may have missed trades, %d markets dropped, %d events skipped\n",
			st.Errors, st.Gaps, st.Dropped, st.Skipped)
	}
	return nil
}

// recordMarket takes a selected market's recording terms. Its tokens are in
// YES, NO order, which is the exchange's outcome order unless a market
// lists NO first (as the loop assumes too).
func recordMarket(m strategy.Market) recorder.Market {
	return recorder.Market{ConditionID: m.ConditionID, Tokens: m.TokenIDs, Tick: m.Tick, MinSize: m.MinSize, EndDate: m.EndDate,
		Rewards: m.Rewards}
}

// progressLine describes the recording so far; data is the size of the
// JSON lines written (before compression).
func progressLine(st recorder.Stats, data int64, elapsed time.Duration) string {
	return fmt.Sprintf("%d events (%d books, %d trades, %d meta), %s of JSON, %s", st.Events, st.Books, st.Trades, st.Metas,
		humanBytes(data), span(elapsed))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// showProgress reports progress until ctx ends or the returned function is
// called: on a terminal one line redrawn with \r every second, otherwise a
// log line every 10 seconds.
func showProgress(ctx context.Context, w io.Writer, terminal bool, line func() string, logLine func(string)) func() {
	every := 10 * time.Second
	if terminal {
		every = time.Second
	}
	t := time.NewTicker(every)
	stop := progressOn(ctx, t.C, w, terminal, line, logLine)
	return func() {
		stop()
		t.Stop()
	}
}

// progressOn writes one progress report per tick.
func progressOn(ctx context.Context, ticks <-chan time.Time, w io.Writer, terminal bool, line func() string, logLine func(string)) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	drawn := false // written by the goroutine, read after it ends
	go func() {
		defer close(stopped)
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-ticks:
				if terminal {
					fmt.Fprintf(w, "\rrecording: %s   ", line())
					drawn = true
				} else {
					logLine("recording: " + line())
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		if drawn {
			fmt.Fprintln(w)
		}
	}
}

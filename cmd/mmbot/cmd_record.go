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

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/recorder"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/daemon"
	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/internal/logging"
	"github.com/mmbot/mmbot/strategy"
)

const recordLong = `Records the books and trades of the markets that mmbot run would quote
(the [markets] section) into a recording for mmbot backtest
(docs/data-format.md). It writes one meta event per token, then polls
POST /books and the data API's GET /trades every --interval within the
configured rate limits, and writes a book only when it changed and each
trade once. SIGINT, SIGTERM or --duration end it; the file is committed
atomically, so it is complete or absent.

The recording is in format version 2 (binary, zstd; name it .mmrec)
unless the name ends in .jsonl.gz or --format v1 asks for version 1
(gzip JSON Lines). mmbot recording convert turns one into the other.`

const recordExample = `  mmbot record -c mmbot.toml --out rec.mmrec --duration 10m
  mmbot record -c mmbot.toml --out rec.mmrec --interval 500ms    # until Ctrl-C
  mmbot record -c mmbot.toml --out rec.jsonl.gz --duration 1h    # format version 1`

// recordFlags are the record command's own flags.
type recordFlags struct {
	out      string
	format   string
	duration time.Duration
	interval time.Duration
}

func newRecordCmd(e *env) *cobra.Command {
	var rf recordFlags
	cmd := &cobra.Command{
		Use:     "record -c mmbot.toml --out rec.mmrec [flags]",
		Short:   "record books and trades of the configured markets",
		Long:    recordLong,
		Example: recordExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	configs.RegisterFlags(fs)
	fs.StringVar(&rf.out, "out", "", "write the recording to this `file` (.mmrec; .jsonl.gz for format version 1)")
	fs.StringVar(&rf.format, "format", "", "the recording's format `version`, v1 or v2 (default: by the file's name; v2 unless it ends in .jsonl.gz)")
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
	format, err := recordingFormat(rf.out, rf.format)
	if err != nil {
		return err
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
	urls, _, stopExchange, err := assemble.Endpoints(cfg)
	if err != nil {
		return err
	}
	defer stopExchange()
	clientObs, marketRefused := daemon.LogObserver(log)
	client, err := assemble.NewClient(cfg, version, urls, nil, clientObs)
	if err != nil {
		return fmt.Errorf("exchange client: %w", err)
	}
	markets, err := assemble.SelectMarkets(ctx, client, &cfg.Markets, marketRefused)
	if err != nil {
		return err
	}
	rms := make([]recorder.Market, 0, len(markets))
	for _, m := range markets {
		log.Info().Str("market", m.ConditionID).Str("slug", m.Slug).Str("tick", m.Tick.String()).Msg("recording")
		rms = append(rms, recordMarket(m))
	}

	w, err := recording.NewWriter(rf.out, recording.WithSource("mmbot record"), recording.WithFormat(format))
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
	// The compressed size lags by what the compressor buffers (0 B for the
	// first tens of KiB with gzip, a block of 1 MiB with version 2):
	// progress shows the size of the events written.
	stopProgress := showProgress(runCtx, e.stderr, isTerminal(e.stderr), func() string {
		return progressLine(rec.Stats(), w.DataBytes(), w.Header().Version, time.Since(start))
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
	fmt.Fprintf(e.stdout, "recorded %s to %s (%s compressed, format v%d)\n", progressLine(st, w.DataBytes(), w.Header().Version, time.Since(start)),
		rf.out, humanBytes(w.Bytes()), w.Header().Version)
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
		Rewards: m.Rewards, Delay: m.PlacementDelay, NegRisk: m.NegRisk, Question: m.Question, Slug: m.Slug}
}

// progressLine describes the recording so far; data is the size of the
// events written before compression: JSON lines in format version 1,
// their binary encoding in version 2.
func progressLine(st recorder.Stats, data int64, version int, elapsed time.Duration) string {
	what := "of JSON"
	if version >= 2 {
		what = "encoded"
	}
	return fmt.Sprintf("%d events (%d books, %d trades, %d meta), %s %s, %s", st.Events, st.Books, st.Trades, st.Metas,
		humanBytes(data), what, status.Span(elapsed))
}

// recordingFormat is the format to write path in: --format's (v1, v2) or,
// when it is empty, the one path's name asks for (version 2 unless it
// ends in .jsonl.gz). A format the name contradicts is a usage error.
func recordingFormat(path, flag string) (recording.FileFormat, error) {
	want, err := recording.ParseFileFormat(flag)
	if err != nil {
		return 0, usagef("--format: %v", err)
	}
	f, err := recording.ResolveFormat(path, want)
	if err != nil {
		return 0, usagef("--format %s: %v", flag, err)
	}
	return f, nil
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

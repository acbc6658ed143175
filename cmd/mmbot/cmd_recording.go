package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/daemon/status"
)

const recordingLong = `Works on recording files (docs/data-format.md): convert copies one into
format version 1 (gzip JSON Lines, .jsonl.gz) or version 2 (binary, zstd
blocks, .mmrec), info describes one. mmbot record, mmbot sim --record and
mmbot backtest read and write both versions.`

const recordingExample = `  mmbot recording convert rec.jsonl.gz rec.mmrec
  mmbot recording info rec.mmrec`

// newRecordingCmd is "mmbot recording", the parent of convert and info.
func newRecordingCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "recording convert|info [flags]",
		Short:   "convert recordings between format versions; describe one",
		Long:    recordingLong,
		Example: recordingExample,
		Args:    unknownCommand,
		// recording is a group: its arguments are subcommand names.
		SuggestionsMinimumDistance: suggestDistance,
		RunE: func(*cobra.Command, []string) error {
			return usagef("recording needs a subcommand: convert or info")
		},
	}
	cmd.AddCommand(newRecordingConvertCmd(e), newRecordingInfoCmd(e))
	return cmd
}

const recordingConvertLong = `Copies the recording IN into OUT in the format OUT's name asks for:
version 2 (binary, zstd blocks) for .mmrec or any name but .jsonl.gz,
version 1 (gzip JSON Lines) for .jsonl.gz; --format says it outright. IN
may be either version. The header's source and creation time are kept,
so converting there and back gives the same events (and the same JSON
lines). OUT is written atomically: after an error or Ctrl-C nothing is
left there.`

const recordingConvertExample = `  mmbot recording convert rec.jsonl.gz rec.mmrec    # version 1 to 2
  mmbot recording convert rec.mmrec rec.jsonl.gz    # and back
  mmbot recording convert --level best rec.jsonl.gz archive.mmrec`

// compressionLevels are --level's words, on gzip's scale (the Writer maps
// them to zstd's for version 2).
var compressionLevels = map[string]int{"fastest": gzip.BestSpeed, "default": gzip.DefaultCompression, "better": 7, "best": gzip.BestCompression}

func newRecordingConvertCmd(e *env) *cobra.Command {
	var format, level string
	cmd := &cobra.Command{
		Use:     "convert IN OUT [flags]",
		Short:   "copy a recording into format version 1 (.jsonl.gz) or 2 (.mmrec)",
		Long:    recordingConvertLong,
		Example: recordingConvertExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("want IN and OUT, got %d arguments", len(args))
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&format, "format", "", "OUT's format `version`, v1 or v2 (default: by OUT's name; v2 unless it ends in .jsonl.gz)")
	fs.StringVar(&level, "level", "default", "compression: fastest, default, better or best")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		return runRecordingConvert(e, args[0], args[1], format, level)
	}
	return cmd
}

func runRecordingConvert(e *env, in, out, formatFlag, levelFlag string) error {
	format, err := recordingFormat(out, formatFlag)
	if err != nil {
		return err
	}
	lvl, ok := compressionLevels[levelFlag]
	if !ok {
		return usagef("--level %q: want fastest, default, better or best", levelFlag)
	}
	if same, err := sameFile(in, out); err == nil && same {
		return usagef("IN and OUT are the same file")
	}
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	n, err := recording.Convert(ctx, in, out, recording.WithFormat(format), recording.WithCompressionLevel(lvl))
	if err != nil {
		return err
	}
	si, err := os.Stat(in)
	if err != nil {
		return err
	}
	so, err := os.Stat(out)
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(e.stdout, "converted %d events in %s (%.0f events/s): %s %s → %s %s (%s, %.3f of the input)\n",
		n, status.Span(el), float64(n)/max(el.Seconds(), 1e-9), in, humanBytes(si.Size()), out, humanBytes(so.Size()), format,
		float64(so.Size())/float64(max(si.Size(), 1)))
	return nil
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

const recordingInfoLong = `Describes a recording: its format version, header, size, number of events
and blocks, and the time span. A version 2 file is described from its
header and its index (their checksums are checked; the blocks are not
read); --check reads every event, checking every block's checksum and
every event. A version 1 file has no index: info always reads it all.`

const recordingInfoExample = `  mmbot recording info rec.mmrec
  mmbot recording info --check rec.mmrec    # read and check every event`

func newRecordingInfoCmd(e *env) *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:     "info FILE [flags]",
		Short:   "describe a recording: version, events, blocks, span",
		Long:    recordingInfoLong,
		Example: recordingInfoExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("want one FILE, got %d arguments", len(args))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "read every event (checks every block and event)")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		stat := recording.Stat
		if check {
			stat = recording.Check
		}
		info, err := stat(args[0])
		if err != nil {
			return err
		}
		return writeRecordingInfo(e.stdout, args[0], info)
	}
	return cmd
}

func writeRecordingInfo(w io.Writer, path string, info recording.Info) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	h := info.Header
	kind := "1 (gzip JSON Lines)"
	if h.Version == 2 {
		kind = "2 (binary, zstd blocks)"
	}
	fmt.Fprintf(tw, "file\t%s (%s)\n", path, humanBytes(info.Size))
	fmt.Fprintf(tw, "version\t%s\n", kind)
	fmt.Fprintf(tw, "created\t%s\n", h.Created.UTC().Format(time.RFC3339))
	if h.Source != "" {
		fmt.Fprintf(tw, "source\t%s\n", h.Source)
	}
	events := fmt.Sprint(info.Events)
	if info.Blocks > 0 {
		events += fmt.Sprintf(" in %d blocks", info.Blocks)
	}
	if info.Events > 0 {
		events += fmt.Sprintf(" (%.1f bytes per event)", float64(info.Size)/float64(info.Events))
	}
	fmt.Fprintf(tw, "events\t%s\n", events)
	if info.Events > 0 {
		fmt.Fprintf(tw, "span\t%s → %s (%s)\n", info.First.UTC().Format(time.RFC3339Nano), info.Last.UTC().Format(time.RFC3339Nano),
			status.Span(info.Last.Sub(info.First)))
	}
	checked := "header and index (--check reads every event)"
	if info.Checked {
		checked = "every event"
	}
	fmt.Fprintf(tw, "checked\t%s\n", checked)
	return tw.Flush()
}

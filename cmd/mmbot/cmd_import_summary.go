package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mmbot/mmbot/backtest/importer"
	"github.com/mmbot/mmbot/daemon/status"
)

// importProgress reports a long import on stderr: on a terminal one line
// redrawn every 2 s (bytes of the inputs read, messages, events, the
// file), otherwise a line every 10 s. The importer calls report every few
// thousand messages, on its own goroutine; report draws only when the
// interval has passed.
type importProgress struct {
	w        io.Writer
	terminal bool
	now      func() time.Time
	every    time.Duration
	start    time.Time
	next     time.Time
	drawn    bool
}

func newImportProgress(w io.Writer, terminal bool, now func() time.Time) *importProgress {
	every := 10 * time.Second
	if terminal {
		every = 2 * time.Second
	}
	t := now()
	return &importProgress{w: w, terminal: terminal, now: now, every: every, start: t, next: t.Add(every)}
}

func (p *importProgress) report(pr importer.Progress) {
	t := p.now()
	if t.Before(p.next) {
		return
	}
	p.next = t.Add(p.every)
	line := importProgressLine(pr, t.Sub(p.start))
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.drawn = true
		return
	}
	fmt.Fprintf(p.w, "%s\n", line)
}

// done ends the redrawn line, if one was drawn.
func (p *importProgress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func importProgressLine(pr importer.Progress, elapsed time.Duration) string {
	pct := 0.0
	if pr.Total > 0 {
		pct = 100 * float64(pr.Read) / float64(pr.Total)
	}
	return fmt.Sprintf("import: %3.0f%% (%s of %s), %d messages, %d events, %s, %s", pct, humanBytes(pr.Read), humanBytes(pr.Total),
		pr.Messages, pr.Events, filepath.Base(pr.File), status.Span(elapsed))
}

// writeImportSummary writes what an import read and wrote: the messages
// imported by type and skipped by reason, the repairs, the derived events
// and the warnings.
func writeImportSummary(w io.Writer, out string, st importer.Stats) {
	var b strings.Builder
	names := make([]string, len(st.Files))
	for i, f := range st.Files {
		names[i] = filepath.Base(f)
	}
	fmt.Fprintf(&b, "imported %d messages from %s into %s: %d events (%d books, %d trades, %d meta)", st.Messages,
		plural(len(st.Files), "file")+" ("+strings.Join(names, ", ")+")", out, st.Events, st.Books, st.Trades, st.Metas)
	if st.Events > 0 {
		fmt.Fprintf(&b, ", %s to %s", st.First.UTC().Format(time.RFC3339Nano), st.Last.UTC().Format(time.RFC3339Nano))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  imported: %s\n", countList(st.Imported, ", "))
	fmt.Fprintf(&b, "  skipped:  %s\n", countList(st.Skipped, "; "))
	if len(st.Frames) > 0 {
		fmt.Fprintf(&b, "  lines that are no message, skipped: %s\n", countList(st.Frames, "; "))
	}
	if st.OutOfOrder > 0 {
		fmt.Fprintf(&b, "  book updates dated before the book they follow: %d (written at that book's time; warnings below)\n", st.OutOfOrder)
	}
	if st.ChangesSkipped > 0 {
		fmt.Fprintf(&b, "  price_change entries for a token with no book yet: %d (in messages otherwise imported)\n", st.ChangesSkipped)
	}
	n := 0
	for _, c := range st.Crossed {
		n += c
	}
	fmt.Fprintf(&b, "  crossed books repaired: %d", n)
	if n > 0 {
		fmt.Fprintf(&b, " (%s), %d levels dropped", countList(st.Crossed, "; "), st.LevelsDropped)
	}
	b.WriteString("\n")
	if st.DerivedBooks > 0 || st.DerivedTrades > 0 {
		fmt.Fprintf(&b, "  derived (--complement): %s, %s\n", plural(st.DerivedBooks, "book"), plural(st.DerivedTrades, "trade"))
	}
	if line := importer.SkippedSummary(st.CatalogSkipped); line != "" {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	for _, wn := range st.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	_, _ = io.WriteString(w, b.String())
}

// countList is "a 3, b 1" in key order, or "none".
func countList(m map[string]int, sep string) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, sep)
}

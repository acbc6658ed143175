package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/backtest/importer"
)

// The summary counts the lines that are no message by kind and the
// out-of-order book updates, besides the messages.
func TestImportSummaryCountsFramesAndLateUpdates(t *testing.T) {
	st := importer.Stats{Files: []string{"a.jsonl"}, Messages: 3, Imported: map[string]int{"book": 3}, Skipped: map[string]int{},
		Frames: map[string]int{"keep-alive (PING, PONG)": 4, "empty line": 2}, OutOfOrder: 5,
		Warnings: []string{"market 0xm: 5 book updates dated before the book they follow (up to 250ms before): …"}}
	var b bytes.Buffer
	writeImportSummary(&b, "rec.mmrec", st)
	for _, w := range []string{"lines that are no message, skipped: empty line 2; keep-alive (PING, PONG) 4",
		"book updates dated before the book they follow: 5", "warning: market 0xm: 5 book updates"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("summary lacks %q:\n%s", w, b.String())
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// writeNamedRecording writes two minutes of books of one market whose
// metas carry tick (when given), question and slug.
func writeNamedRecording(t *testing.T, path, tick string) {
	t.Helper()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w, err := recording.NewWriter(path, recording.WithCreated(t0))
	if err != nil {
		t.Fatal(err)
	}
	d := decimal.RequireFromString
	var tk decimal.Decimal
	if tick != "" {
		tk = d(tick)
	}
	for _, tok := range []string{"Y", "N"} {
		if err := w.Write(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: t0}, TokenID: tok, Market: btCond,
			TickSize: tk, MinOrderSize: d("5"), Question: "Will the test pass?", Slug: "will-the-test-pass"})); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 600; i++ {
		for _, tok := range []string{"Y", "N"} {
			if err := w.Write(recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: t0.Add(time.Duration(i) * 200 * time.Millisecond)},
				TokenID: tok, Market: btCond, Bids: []exchange.PriceLevel{{Price: d("0.48"), Size: d("100")}},
				Asks: []exchange.PriceLevel{{Price: d("0.52"), Size: d("100")}}, TickSize: tk})); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// The HTML report heads a market by the question its recording carries,
// and a recording without a usable market says why.
func TestBacktestQuestionHeadingAndReasons(t *testing.T) {
	dir := t.TempDir()
	rec, cfg := filepath.Join(dir, "rec.mmrec"), filepath.Join(dir, "mmbot.toml")
	writeNamedRecording(t, rec, "0.01")
	if err := os.WriteFile(cfg, []byte(btConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runBt("backtest", "-c", cfg, "--data", rec, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "Will the test pass?") {
		t.Error("report.html does not head the market by its question")
	}
	noTick := filepath.Join(dir, "notick.mmrec")
	writeNamedRecording(t, noTick, "")
	code, _, stderr := runBt("backtest", "-c", cfg, "--data", noTick, "--out", filepath.Join(dir, "out2"))
	if code == 0 || !strings.Contains(stderr, "no market a backtest can use") || !strings.Contains(stderr, "market "+btCond+": no tick size in the recording") {
		t.Errorf("exit %d, stderr %q: want the reason of the market", code, stderr)
	}
}

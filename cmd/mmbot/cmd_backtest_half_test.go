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

// A recording with the books of one outcome of its market only (the NO
// token appears in its metadata, never in a book) cannot be quoted: the
// backtest says so and fails, instead of running to the end without an
// order and exiting 0.
func TestBacktestHalfMarket(t *testing.T) {
	dir := t.TempDir()
	rec, cfg := filepath.Join(dir, "half.jsonl.gz"), filepath.Join(dir, "mmbot.toml")
	if err := os.WriteFile(cfg, []byte(btConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w, err := recording.NewWriter(rec, recording.WithCreated(t0), recording.WithCompressionLevel(1))
	if err != nil {
		t.Fatal(err)
	}
	d := decimal.RequireFromString
	for _, tok := range []string{"Y", "N"} {
		if err := w.Write(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: t0}, TokenID: tok, Market: btCond,
			TickSize: d("0.01"), MinOrderSize: d("5")})); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 600; i++ {
		if err := w.Write(recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: t0.Add(time.Duration(i) * 200 * time.Millisecond)},
			TokenID: "Y", Market: btCond, Bids: []exchange.PriceLevel{{Price: d("0.48"), Size: d("100")}},
			Asks: []exchange.PriceLevel{{Price: d("0.52"), Size: d("100")}}, TickSize: d("0.01"), MinOrderSize: d("5")})); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBt("backtest", "-c", cfg, "--data", rec)
	if code == 0 {
		t.Fatalf("exit 0 on a half market:\n%s\n%s", stdout, stderr)
	}
	for _, want := range []string{"nothing to quote: 1 of 1 markets have books of one outcome only", "600 books of YES, 0 of NO"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

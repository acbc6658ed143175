package backtest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// t0 is the start of every hand-made event sequence.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// lv builds levels from "price:size" pairs.
func lv(tb testing.TB, pairs ...string) []exchange.PriceLevel {
	tb.Helper()
	out := make([]exchange.PriceLevel, 0, len(pairs))
	for _, p := range pairs {
		var price, size string
		for i := 0; i < len(p); i++ {
			if p[i] == ':' {
				price, size = p[:i], p[i+1:]
			}
		}
		if price == "" {
			tb.Fatalf("bad level %q", p)
		}
		out = append(out, exchange.PriceLevel{Price: dec(price), Size: dec(size)})
	}
	return out
}

// fx parses a Fixed constant of a test; a bad constant fails the test.
func fx(tb testing.TB, s string) Fixed {
	tb.Helper()
	f, err := ParseFixed(s)
	if err != nil {
		tb.Fatalf("fixed %q: %v", s, err)
	}
	return f
}

func assertDirEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
}

func sec(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Second))) }

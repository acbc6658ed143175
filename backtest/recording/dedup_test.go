package recording

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

func TestBookFilter(t *testing.T) {
	mk := func(tok string, bids, asks []exchange.PriceLevel, tick string) *Book {
		return &Book{TokenID: tok, Bids: bids, Asks: asks, TickSize: fixture.Dec(tick)}
	}
	var f BookFilter
	steps := []struct {
		name string
		b    *Book
		hash string
		want bool
	}{
		{"first", mk("1", fixture.Lv(t, "0.5:10"), fixture.Lv(t, "0.6:10"), "0.01"), "h1", true},
		{"same hash", mk("1", fixture.Lv(t, "0.5:99"), nil, "0.01"), "h1", false}, // equal hashes mean equal books
		{"new hash, same content", mk("1", fixture.Lv(t, "0.5:10"), fixture.Lv(t, "0.6:10"), "0.01"), "h2", false},
		{"size changed", mk("1", fixture.Lv(t, "0.5:11"), fixture.Lv(t, "0.6:10"), "0.01"), "", true},
		{"same, no hash", mk("1", fixture.Lv(t, "0.50:11"), fixture.Lv(t, "0.6:10.0"), "0.01"), "", false},
		{"level added", mk("1", fixture.Lv(t, "0.5:11", "0.4:1"), fixture.Lv(t, "0.6:10"), "0.01"), "", true},
		{"tick changed", mk("1", fixture.Lv(t, "0.5:11", "0.4:1"), fixture.Lv(t, "0.6:10"), "0.001"), "", true},
		{"other token", mk("2", fixture.Lv(t, "0.5:11", "0.4:1"), fixture.Lv(t, "0.6:10"), "0.001"), "", true},
		{"ask gone", mk("1", fixture.Lv(t, "0.5:11", "0.4:1"), nil, "0.001"), "", true},
	}
	for _, s := range steps {
		if got := f.Changed(s.b, s.hash); got != s.want {
			t.Errorf("%s: Changed = %v, want %v", s.name, got, s.want)
		}
	}
	// The filter keeps its own copy: mutating a passed book changes nothing.
	b := mk("3", fixture.Lv(t, "0.5:1"), nil, "0.01")
	f.Changed(b, "")
	b.Bids[0].Size = fixture.Dec("2")
	if !f.Changed(mk("3", fixture.Lv(t, "0.5:2"), nil, "0.01"), "") {
		t.Error("the filter aliased the caller's levels")
	}
	f.Forget("3")
	if !f.Changed(mk("3", fixture.Lv(t, "0.5:2"), nil, "0.01"), "") {
		t.Error("a forgotten token's book did not pass")
	}
}

func TestParseMillis(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"1772366400123", time.UnixMilli(1772366400123)},
		{"1772366400", time.Unix(1772366400, 0)},
		{"", time.Time{}}, {"x", time.Time{}}, {"-5", time.Time{}},
	} {
		if got := parseMillis(c.in); !got.Equal(c.want) {
			t.Errorf("parseMillis(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func dedupTrade(ts int64, tx string) exchange.Trade {
	return exchange.Trade{Asset: "0xm:0", ConditionID: "0xm", Side: exchange.Buy, Price: exchange.MustNumber("0.5"),
		Size: exchange.MustNumber("1"), Timestamp: ts, TransactionHash: tx}
}

func TestTradeDedup(t *testing.T) {
	d := TradeDedup{Start: 1000, horizon: time.Minute}
	resp := []exchange.Trade{dedupTrade(1002, "c"), dedupTrade(1001, "b"), dedupTrade(999, "a")} // newest first
	out, gap := d.Fresh(resp, 10)
	if len(out) != 2 || out[0].TransactionHash != "b" || out[1].TransactionHash != "c" || gap {
		t.Fatalf("first: %v gap %v", out, gap)
	}
	out, _ = d.Fresh(append([]exchange.Trade{dedupTrade(1003, "d")}, resp...), 10)
	if len(out) != 1 || out[0].TransactionHash != "d" {
		t.Fatalf("second: %v", out)
	}
	// A full response of new trades signals a gap.
	if _, gap := d.Fresh([]exchange.Trade{dedupTrade(1005, "f"), dedupTrade(1004, "e")}, 2); !gap {
		t.Error("no gap reported")
	}
	// Past the horizon old trades are ignored, and forgotten.
	if out, _ = d.Fresh([]exchange.Trade{dedupTrade(2000, "g")}, 10); len(out) != 1 {
		t.Fatalf("horizon: %v", out)
	}
	out, _ = d.Fresh([]exchange.Trade{dedupTrade(2000, "g"), dedupTrade(1003, "late"), dedupTrade(1002, "c")}, 10)
	if len(out) != 0 {
		t.Fatalf("trades older than the horizon returned: %v", out)
	}
	// Same key, different size: two trades.
	t2 := dedupTrade(2000, "g")
	t2.Size = exchange.MustNumber("2")
	if out, _ = d.Fresh([]exchange.Trade{t2}, 10); len(out) != 1 {
		t.Errorf("a different fill of one transaction was dropped")
	}
}

// FuzzTradeDedup feeds random overlapping responses: no trade is ever
// returned twice, every returned trade is at or after the start, and each
// batch comes out oldest first.
func FuzzTradeDedup(f *testing.F) {
	f.Add([]byte{1, 2, 3, 3, 2, 1, 0, 9})
	f.Add([]byte{200, 0, 200, 0, 17, 17, 17})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := TradeDedup{Start: 1000, horizon: 30 * time.Second}
		seen := map[tradeKey]bool{}
		for len(data) >= 2 {
			n := int(data[0]%8) + 1
			data = data[1:]
			var resp []exchange.Trade
			for i := 0; i < n && len(data) >= 2; i++ {
				ts := 990 + int64(binary.BigEndian.Uint16(data[:2])%200)
				resp = append(resp, dedupTrade(ts, fmt.Sprint(data[0]%5)))
				data = data[2:]
			}
			out, _ := d.Fresh(resp, 0)
			for i := range out {
				k := keyOf(&out[i])
				if seen[k] {
					t.Fatalf("trade %+v returned twice", k)
				}
				seen[k] = true
				if out[i].Timestamp < 1000 {
					t.Fatalf("trade before the start returned: %d", out[i].Timestamp)
				}
				if i > 0 && out[i].Timestamp < out[i-1].Timestamp {
					t.Fatalf("not oldest first: %v", out)
				}
			}
		}
	})
}

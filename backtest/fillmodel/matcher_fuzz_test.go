package fillmodel

import (
	"encoding/binary"
	"strconv"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// FuzzMatcher drives a Matcher with arbitrary operations and checks its
// invariants: no order fills beyond its size, queue estimates are never
// negative, fills only happen to orders that were placed, times never run
// backwards, and a second Matcher with the same seed produces the same
// fills.
func FuzzMatcher(f *testing.F) {
	f.Add([]byte{0, 10, 20, 1, 3, 30, 2, 5, 40, 3, 4, 9, 4, 1, 1, 0, 5, 5})
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for mode := ModeQueue; mode <= ModeOptimistic; mode++ {
			cfg := MatcherConfig{Mode: mode, Queue: QueueModel{Sample: len(data)%2 == 0},
				Latency: Latency{Order: Uniform(0, 20*time.Millisecond), Cancel: LogNormal(5*time.Millisecond, 1)}, Seed: 7}
			a := runFuzzOps(t, cfg, data)
			b := runFuzzOps(t, cfg, data)
			if a != b {
				t.Fatalf("mode %s: two runs with one seed differ:\n%s\n%s", mode, a, b)
			}
		}
	})
}

func runFuzzOps(t *testing.T, cfg MatcherConfig, data []byte) string {
	m, err := NewMatcher("tok", cfg)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]exchange.Fixed{}
	filled := map[string]exchange.Fixed{}
	var log []byte
	now := fixture.T0
	var book recording.FixedBook
	for len(data) >= 3 {
		op, x, y := data[0]%6, exchange.Fixed(data[1]), exchange.Fixed(data[2])
		data = data[3:]
		now = now.Add(time.Duration(y%16) * time.Millisecond)
		price := exchange.Fixed(10_000) * (1 + x%99) // 0.01 … 0.99
		var fills []Fill
		switch op {
		case 0: // book around price
			book.Bids, book.Asks = book.Bids[:0], book.Asks[:0]
			for l := exchange.Fixed(0); l < 3; l++ {
				if p := price - l*10_000; p > 0 {
					book.Bids = append(book.Bids, recording.Level{Price: p, Size: (y + l) * exchange.FixedScale})
				}
				book.Asks = append(book.Asks, recording.Level{Price: price + (1+l)*10_000, Size: (x%7 + l) * exchange.FixedScale})
			}
			fills = m.OnBook(&book, now)
		case 1, 2: // place
			id := "o" + strconv.Itoa(len(sizes))
			side := exchange.Buy
			if op == 2 {
				side = exchange.Sell
			}
			size := (1 + y%9) * exchange.FixedScale
			if _, err := m.Place(VirtualOrder{ID: id, Side: side, Price: price, Size: size}, now); err != nil {
				t.Fatal(err)
			}
			sizes[id] = size
		case 3: // cancel
			id := "o" + strconv.Itoa(int(x)%max(1, len(sizes)))
			if _, err := m.Cancel(id, now); err == nil && sizes[id] == 0 {
				t.Fatalf("cancel of never-placed %s accepted", id)
			}
		case 4: // trade
			side := exchange.Side("")
			switch y % 3 {
			case 1:
				side = exchange.Buy
			case 2:
				side = exchange.Sell
			}
			fills = m.OnTrade(MatchTrade{Price: price, Size: (1 + y%5) * exchange.FixedScale, TakerSide: side}, now)
		case 5:
			fills = m.Advance(now)
		}
		for _, f := range fills {
			if sizes[f.OrderID] == 0 {
				t.Fatalf("fill of unknown order %s", f.OrderID)
			}
			if f.Size <= 0 || f.Time.After(now) {
				t.Fatalf("bad fill %+v at %v", f, now)
			}
			filled[f.OrderID] += f.Size
			if filled[f.OrderID] > sizes[f.OrderID] || f.Remaining != sizes[f.OrderID]-filled[f.OrderID] {
				t.Fatalf("order %s overfilled: %s of %s (fill %+v)", f.OrderID, filled[f.OrderID], sizes[f.OrderID], f)
			}
			log = binary.AppendVarint(log, int64(f.Size))
			log = append(log, f.OrderID...)
		}
		for _, st := range m.Resting(nil) {
			if st.Ahead < 0 || st.Remaining <= 0 {
				t.Fatalf("bad state %+v", st)
			}
		}
	}
	return string(log)
}

package state

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// BenchmarkCycle measures one loop cycle's journal transaction: 8 new
// intents, 8 results for the previous cycle's intents and 4 fills, in one
// Update. "fsync" is the real cost (one fsync of data and meta per commit,
// dominated by the disk); "nosync" is the CPU part.
func BenchmarkCycle(b *testing.B) {
	for _, c := range []struct {
		name   string
		noSync bool
	}{{"fsync", false}, {"nosync", true}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "bench.db"), Options{NoSync: c.noSync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			next := 1
			var prev []Order
			cycle := func() {
				cur := make([]Order, 0, 8)
				for range 8 {
					cur = append(cur, testOrder(next, "tok"+fmt.Sprint(next%4), exchange.Buy))
					next++
				}
				now := t0.Add(time.Duration(next) * time.Second)
				err := s.Update(func(tx *Tx) error {
					for _, o := range cur {
						if err := tx.PutIntent(o); err != nil {
							return err
						}
					}
					for i, o := range prev {
						if err := tx.ApplyResult(o.Hash, fmt.Sprint("X", next, i), Live, decimal.Zero, "", now); err != nil {
							return err
						}
					}
					for i := range min(4, len(prev)) {
						if _, err := tx.AddFill(testFill(fmt.Sprint("t", next, i), prev[i], "1", "0.45", now)); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				prev = cur
			}
			cycle() // so that every measured cycle has results and fills
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				cycle()
			}
		})
	}
}

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

// BenchmarkRequote is the journal's part of a daemon cycle that requotes n
// orders (BenchmarkDaemonCycle's moving books, without fsync): one
// transaction with n new intents, then one with their placement answers
// (live) and the cancels of the previous cycle's n orders.
func BenchmarkRequote(b *testing.B) {
	for _, n := range []int{80, 800} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "bench.db"), Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			next := 1
			var prev []Order
			cycle := func() {
				cur := make([]Order, 0, n)
				for range n {
					o := testOrder(next, fmt.Sprintf("7132104567925221259462638553270691275033272857194253228963137931245%010d", next%400), exchange.Buy)
					cur = append(cur, o)
					next++
				}
				now := t0.Add(time.Duration(next) * time.Second)
				if err := s.Update(func(tx *Tx) error {
					for i := range cur {
						cur[i].CreatedAt = now
						if err := tx.PutIntent(cur[i]); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if err := s.Update(func(tx *Tx) error {
					for _, o := range prev {
						if err := tx.ApplyResult(o.Hash, o.Hash, Canceled, decimal.Zero, "", now); err != nil {
							return err
						}
					}
					for _, o := range cur {
						if err := tx.ApplyResult(o.Hash, o.Hash, Live, decimal.Zero, "", now); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				prev = cur
			}
			for range 20 { // a journal with some history
				cycle()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				cycle()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/1e3, "µs/order")
		})
	}
}

package state

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
)

// liveOrder journals o and takes it to live.
func liveOrder(t *testing.T, s *Store, o Order) {
	t.Helper()
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.PutIntent(o); err != nil {
			return err
		}
		return tx.ApplyResult(o.Hash, o.Hash, Live, d("0"), "", t0)
	})
}

func tradeOf(id string, o Order, size, price, status string, at time.Time) Trade {
	return Trade{ID: id, OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID, Side: o.Side,
		Price: d(price), Size: d(size), Status: status, MatchedAt: t0, UpdatedAt: at}
}

// Issue 20 point 6: a trade's fill is pending until the trade is final; a
// FAILED trade takes its fill back (shares, collateral through the cost
// basis, PnL) once, in the same transaction; CONFIRMED drops the record.
func TestTradeSettlement(t *testing.T) {
	s := newTestStore(t, Options{})
	buy := testOrder(1, "tokA", exchange.Buy)
	buy2 := testOrder(2, "tokA", exchange.Buy)
	liveOrder(t, s, buy)
	liveOrder(t, s, buy2)
	mustUpdate(t, s, func(tx *Tx) error {
		if _, err := tx.AddFill(testFill("d1", buy, "10", "0.40", t0)); err != nil {
			return err
		}
		_, err := tx.AddFill(testFill("d2", buy2, "10", "0.50", t0))
		return err
	})
	for _, tr := range []Trade{tradeOf("t1", buy, "10", "0.40", TradeMatched, t0), tradeOf("t2", buy2, "10", "0.50", TradeMatched, t0)} {
		mustUpdate(t, s, func(tx *Tx) error { _, _, err := tx.PutTrade(tr); return err })
	}
	open, err := s.OpenTrades()
	if err != nil || len(open) != 2 {
		t.Fatalf("open trades %+v %v, want 2", open, err)
	}
	steps := []struct {
		tr               Trade
		changed, reverse bool
	}{
		{tradeOf("t1", buy, "10", "0.40", TradeMined, t0.Add(time.Second)), true, false},
		{tradeOf("t1", buy, "10", "0.40", TradeMined, t0.Add(time.Second)), false, false},
		{tradeOf("t1", buy, "10", "0.40", TradeConfirmed, t0.Add(2*time.Second)), true, false},
		{tradeOf("t2", buy2, "10", "0.50", TradeRetrying, t0.Add(time.Second)), true, false},
		{tradeOf("t2", buy2, "10", "0.50", TradeFailed, t0.Add(3*time.Second)), true, true},
		{tradeOf("t2", buy2, "10", "0.50", TradeFailed, t0.Add(4*time.Second)), false, false},
		{tradeOf("t2", buy2, "10", "0.50", TradeConfirmed, t0.Add(5*time.Second)), false, false},
	}
	for i, st := range steps {
		var changed, reversed bool
		mustUpdate(t, s, func(tx *Tx) (err error) { changed, reversed, err = tx.PutTrade(st.tr); return err })
		if changed != st.changed || reversed != st.reverse {
			t.Fatalf("step %d (%s %s): changed %v reversed %v, want %v %v", i, st.tr.ID, st.tr.Status, changed, reversed, st.changed, st.reverse)
		}
	}
	var p Position
	mustUpdate(t, s, func(tx *Tx) (err error) { p, err = tx.Position("tokA"); return err })
	// 10 @ 0.40 remain: the 10 @ 0.50 of the failed trade are gone, and with them 5 of collateral.
	if !p.Shares.Equal(d("10")) || !p.Cost.Equal(d("4")) || !p.RealizedPnL.IsZero() {
		t.Fatalf("position after the failed trade: %+v, want 10 shares at cost 4", p)
	}
	if open, err := s.OpenTrades(); err != nil || len(open) != 0 {
		t.Fatalf("open trades after both are final: %+v %v", open, err)
	}
	failed, err := s.FailedTrades(time.Time{})
	if err != nil || len(failed) != 1 || failed[0].ID != "t2" || !failed[0].Reversed {
		t.Fatalf("failed trades %+v %v, want t2, reversed", failed, err)
	}
	var gone bool
	mustUpdate(t, s, func(tx *Tx) error { _, ok, err := tx.Trade("t1", buy.Hash); gone = !ok; return err })
	if !gone {
		t.Fatal("the confirmed trade's record is kept")
	}
}

// Reversal keeps realized PnL − cost equal to the collateral paid and
// received, whatever came between the fill and its failure.
func TestPositionReverse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fills  []Fill
		undo   Fill
		shares string
		cash   string // realized − cost after, the collateral balance of the fills left
	}{
		{"buy of two", []Fill{{Side: exchange.Buy, Price: d("0.4"), Size: d("10")}, {Side: exchange.Buy, Price: d("0.6"), Size: d("10")}},
			Fill{Side: exchange.Buy, Price: d("0.6"), Size: d("10")}, "10", "-4"},
		{"sell after a buy", []Fill{{Side: exchange.Buy, Price: d("0.4"), Size: d("10")}, {Side: exchange.Sell, Price: d("0.7"), Size: d("4")}},
			Fill{Side: exchange.Sell, Price: d("0.7"), Size: d("4")}, "10", "-4"},
		{"the only buy", []Fill{{Side: exchange.Buy, Price: d("0.4"), Size: d("10")}}, Fill{Side: exchange.Buy, Price: d("0.4"), Size: d("10")}, "0", "0"},
		{"a buy after a sell", []Fill{{Side: exchange.Buy, Price: d("0.4"), Size: d("10")}, {Side: exchange.Sell, Price: d("0.7"), Size: d("10")},
			{Side: exchange.Buy, Price: d("0.5"), Size: d("5")}}, Fill{Side: exchange.Buy, Price: d("0.5"), Size: d("5")}, "0", "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Position{}
			for i, f := range append(tc.fills, tc.undo) {
				f.ID, f.TokenID, f.Time = strconv.Itoa(i), "tok", t0
				f.Reversal = i == len(tc.fills)
				if err := p.Apply(&f); err != nil {
					t.Fatal(err)
				}
			}
			if !p.Shares.Equal(d(tc.shares)) || !p.RealizedPnL.Sub(p.Cost).Equal(d(tc.cash)) {
				t.Fatalf("%+v: want %s shares, realized − cost %s", p, tc.shares, tc.cash)
			}
			if p.Shares.IsZero() && !p.Cost.IsZero() {
				t.Fatalf("flat with cost %s", p.Cost)
			}
		})
	}
}

// Issue 20 point 6: a schema-3 journal migrates to 4 (the trades buckets
// are added; fills and positions are untouched), and settles trades after.
func TestMigrateV3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	buy := testOrder(1, "tokA", exchange.Buy)
	liveOrder(t, s, buy)
	mustUpdate(t, s, func(tx *Tx) error { _, err := tx.AddFill(testFill("d1", buy, "10", "0.40", t0)); return err })
	// Back to schema 3: no trades buckets, version 3.
	if err := s.db.Update(func(btx *bolt.Tx) error {
		for _, b := range [][]byte{bucketTrades, bucketTradesOpen} {
			if err := btx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return putSchemaVersion(btx, 3)
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, s)
	if _, v := rawSchemaOf(t, s); v != "4" {
		t.Fatalf("schema %q after migration, want 4", v)
	}
	ps, err := s.Positions()
	if err != nil || len(ps) != 1 || !ps[0].Shares.Equal(d("10")) {
		t.Fatalf("positions after migration %+v %v", ps, err)
	}
	mustUpdate(t, s, func(tx *Tx) error {
		_, _, err := tx.PutTrade(tradeOf("t1", buy, "10", "0.40", TradeFailed, t0.Add(time.Second)))
		return err
	})
	if ps, err := s.Positions(); err != nil || !ps[0].Shares.IsZero() {
		t.Fatalf("positions after the failed trade %+v %v", ps, err)
	}
}

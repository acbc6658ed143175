package state

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

func testFill(id string, o Order, size, price string, at time.Time) Fill {
	return Fill{
		ID: id, OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID,
		Side: o.Side, Price: d(price), Size: d(size), Fee: d("0"), Time: at,
	}
}

func TestAddFillIdempotent(t *testing.T) {
	s := newTestStore(t, Options{})
	o := testOrder(1, "tokA", exchange.Buy)
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(o) })
	f := testFill("trade-1", o, "4", "0.45", t0)
	for i, want := range []bool{true, false, false} {
		var added bool
		mustUpdate(t, s, func(tx *Tx) (err error) { added, err = tx.AddFill(f); return err })
		if added != want {
			t.Fatalf("AddFill #%d added = %v, want %v", i, added, want)
		}
		// a re-read fill with the same id but other fields is still a no-op
		f.Size = d("9")
	}
	ps, err := s.Positions()
	if err != nil || len(ps) != 1 {
		t.Fatalf("positions %v %v", ps, err)
	}
	if !ps[0].Shares.Equal(d("4")) || !ps[0].Cost.Equal(d("1.8")) || ps[0].Fills != 1 {
		t.Fatalf("position %+v", ps[0])
	}
	// the same fill twice within one transaction
	g := testFill("trade-2", o, "1", "0.45", t0)
	mustUpdate(t, s, func(tx *Tx) error {
		for range 2 {
			if _, err := tx.AddFill(g); err != nil {
				return err
			}
		}
		return nil
	})
	all, _ := s.Fills(time.Time{})
	if len(all) != 2 || all[0].Seq != 1 || all[1].Seq != 2 {
		t.Fatalf("fills %+v", all)
	}
}

func TestAddFillReferences(t *testing.T) {
	s := newTestStore(t, Options{})
	o := testOrder(1, "tokA", exchange.Buy)
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(o) })
	unknown := testOrder(99, "tokA", exchange.Buy)
	cases := []struct {
		name    string
		f       Fill
		wantErr error
	}{
		{"unknown order", testFill("a", unknown, "1", "0.5", t0), ErrNotFound},
		{"wrong token", func() Fill { f := testFill("b", o, "1", "0.5", t0); f.TokenID = "tokB"; return f }(), ErrInvalid},
		{"wrong side", func() Fill { f := testFill("c", o, "1", "0.5", t0); f.Side = exchange.Sell; return f }(), ErrInvalid},
		{"no order, not external", func() Fill { f := testFill("d", o, "1", "0.5", t0); f.OrderHash = ""; return f }(), ErrInvalid},
		{"zero time", testFill("e", o, "1", "0.5", time.Time{}), ErrInvalid},
		{"zero size", testFill("f", o, "0", "0.5", t0), ErrInvalid},
		{"empty id", testFill("", o, "1", "0.5", t0), ErrInvalid},
		{"oversell external", func() Fill {
			f := testFill("g", o, "1", "0.5", t0)
			f.OrderHash, f.External, f.Side = "", true, exchange.Sell
			return f
		}(), ErrOversell},
		{"external unknown order", func() Fill { f := testFill("h", unknown, "2", "0.5", t0); f.External = true; return f }(), nil},
		{"external no order", func() Fill { f := testFill("i", o, "1", "0.5", t0); f.OrderHash, f.External = "", true; return f }(), nil},
	}
	for _, c := range cases {
		err := s.Update(func(tx *Tx) error { _, err := tx.AddFill(c.f); return err })
		if !errors.Is(err, c.wantErr) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.wantErr)
		}
	}
	p, _ := positionOf(s, "tokA")
	if !p.Shares.Equal(d("3")) || p.Fills != 2 {
		t.Fatalf("only the two external fills should count: %+v", p)
	}
}

func positionOf(s *Store, tok string) (p Position, err error) {
	err = s.View(func(tx *Tx) error { p, err = tx.Position(tok); return err })
	return p, err
}

func TestFillsSinceAndLookup(t *testing.T) {
	s := newTestStore(t, Options{})
	o := testOrder(1, "tokA", exchange.Buy)
	at := []time.Duration{5 * time.Second, -time.Hour, 2 * time.Second, 5 * time.Second}
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.PutIntent(o); err != nil {
			return err
		}
		for i, dt := range at {
			if _, err := tx.AddFill(testFill(string(rune('a'+i)), o, "1", "0.5", t0.Add(dt))); err != nil {
				return err
			}
		}
		return nil
	})
	ids := func(fs []Fill) string {
		var b strings.Builder
		for _, f := range fs {
			b.WriteString(f.ID)
		}
		return b.String()
	}
	cases := []struct {
		since time.Time
		want  string
	}{
		{time.Time{}, "bcad"},
		{t0, "cad"},
		{t0.Add(2 * time.Second), "cad"},
		{t0.Add(3 * time.Second), "ad"},
		{t0.Add(time.Minute), ""},
		{time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), "bcad"},
	}
	for _, c := range cases {
		fs, err := s.Fills(c.since)
		if err != nil {
			t.Fatal(err)
		}
		if ids(fs) != c.want {
			t.Errorf("Fills(%v) = %q, want %q", c.since, ids(fs), c.want)
		}
	}
	_ = s.View(func(tx *Tx) error {
		f, err := tx.Fill("c")
		if err != nil || !f.Time.Equal(t0.Add(2*time.Second)) || f.Seq != 3 {
			t.Errorf("Fill(c) = %+v, %v", f, err)
		}
		if _, err := tx.Fill("zz"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Fill(zz): %v", err)
		}
		return nil
	})
}

func TestDerivedFillID(t *testing.T) {
	a := DerivedFillID("0xh", d("2.50"))
	if a != DerivedFillID("0xh", d("2.50")) || a != DerivedFillID("0xh", d("2.5")) {
		t.Fatal("not deterministic in the value")
	}
	if !strings.HasPrefix(a, "d:") || len(a) != 34 {
		t.Fatalf("id %q", a)
	}
	for _, other := range []string{DerivedFillID("0xh", d("2.6")), DerivedFillID("0xi", d("2.50")), DerivedFillID("0xh2", d(".50"))} {
		if other == a {
			t.Fatalf("collision with %q", other)
		}
	}
}

package state

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// Compact strings give back exactly what went in, whatever its shape.
func TestCstrRoundTrip(t *testing.T) {
	for _, s := range []string{
		"", "0", "00", "007", "12345", "71321045679252212594626385532706912752033272857194253228963137931245000001",
		"0x", "0x0", "0xab", "0xAB", "0xabc", "0x" + "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
		"d:", "d:00ff", "d:00FF", "trade-1", "tokA", "-1", "1e5", " 1",
	} {
		r := reader{b: cstrKey(s)}
		if got := r.cstr(); got != s || r.done() != nil {
			t.Errorf("%q: round trip %q (%v)", s, got, r.err)
		}
	}
}

// Order records round-trip every field, including the rare shapes: an
// exchange id that is not the hash, unset times, values outside the
// tables.
func TestOrderRecordRoundTrip(t *testing.T) {
	s := newTestStore(t, Options{})
	base := testOrder(1, "71321045679252212594626385532706912752033272857194253228963137931245", exchange.Buy)
	base.Item = exchange.PlacementItem{}
	cases := map[string]func(o *Order){
		"intent":             func(o *Order) { o.State, o.UpdatedAt = Intent, o.CreatedAt },
		"exchange id = hash": func(o *Order) { o.State, o.ExchangeID, o.SentAt, o.UpdatedAt = Live, o.Hash, t0, t0.Add(time.Minute) },
		"other exchange id":  func(o *Order) { o.State, o.ExchangeID, o.SentAt, o.UpdatedAt = Live, "X-1", t0, t0 },
		"partly matched": func(o *Order) {
			o.State, o.SizeMatched, o.SentAt, o.UpdatedAt, o.LastError = PartiallyFilled, d("2.5"), t0, t0.Add(-time.Hour), "delayed"
		},
		"filled":        func(o *Order) { o.State, o.SizeMatched, o.SentAt, o.UpdatedAt = Filled, d("10"), t0, t0 },
		"odd values":    func(o *Order) { o.Side, o.OrderType, o.State, o.Outcome = "HOLD", "IOC", "weird", -3 },
		"no updated at": func(o *Order) { o.UpdatedAt = time.Time{} },
	}
	for name, edit := range cases {
		o := stored{Order: base}
		edit(&o.Order)
		var got stored
		err := s.Update(func(tx *Tx) error {
			raw, err := tx.encodeOrder(&o)
			if err != nil {
				return err
			}
			return tx.decodeOrder(raw, &got)
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(normalise(got.Order), normalise(o.Order)) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got.Order, o.Order)
		}
	}
}

// The records of schema 3 are small: a filled order's record, without its
// item, and a fill of it, well under what schema 2 stored as JSON.
func TestRecordSizes(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := simOrder(1, t0)
	o.State, o.ExchangeID, o.SizeMatched, o.SentAt, o.UpdatedAt = Filled, o.Hash, o.Size, t0, t0.Add(time.Minute)
	f := Fill{ID: DerivedFillID(o.Hash, o.Size), OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID,
		Side: o.Side, Price: o.Price, Size: o.Size, Fee: d("0"), Time: t0}
	var orec, frec []byte
	err = s.Update(func(tx *Tx) error {
		st := &stored{Order: o, seq: 1}
		if orec, err = tx.encodeOrder(st); err != nil {
			return err
		}
		frec = encodeFill(&f, st)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(orec) > 80 || len(frec) > 48 {
		t.Fatalf("order record %d bytes, fill record %d bytes", len(orec), len(frec))
	}
}

// Decimals keep their coefficient and exponent, whatever their size.
func TestDecimalRoundTrip(t *testing.T) {
	for _, s := range []string{"0", "0.45", "10", "10.0", "-3.25", "1e30", "123456789012345678901234567890.5", "0.000001"} {
		want := d(s)
		r := reader{b: appendDec(nil, want)}
		got := r.dec()
		if r.done() != nil || got.Coefficient().Cmp(want.Coefficient()) != 0 || got.Exponent() != want.Exponent() {
			t.Errorf("%s: got %s (%v)", s, got, r.err)
		}
	}
}

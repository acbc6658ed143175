package engine

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// A snapshot restored into a fresh engine with the same market is the same
// engine: the same snapshot, and the next orders match the same way (time
// priority within a level, partial fills, reservations).
func TestSnapshotRestoreRoundTrip(t *testing.T) {
	f := newFixture(t, "a", "b", "c")
	if err := f.e.Split("c", mkt, sh(100)); err != nil {
		t.Fatal(err)
	}
	mustPlace := func(acct, tok string, side Side, cents, shares int64, tif TIF) {
		t.Helper()
		if _, err := f.place(acct, tok, side, cents, shares, tif); err != nil {
			t.Fatal(err)
		}
	}
	mustPlace("a", yes, Buy, 40, 10, GTC)
	mustPlace("b", yes, Buy, 40, 20, GTD) // behind a at 0.40
	mustPlace("a", no, Buy, 50, 10, GTC)  // a bid on the complement: an ask of yes at 0.50
	mustPlace("c", yes, Sell, 60, 30, GTC)
	mustPlace("c", yes, Sell, 40, 15, FAK) // fills a's 10 and 5 of b's 20

	b, err := json.Marshal(f.e.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	g := New()
	if err := g.AddMarket(MarketSpec{ID: mkt, Tokens: [2]string{yes, no}, Tick: c(1), MinSize: sh(5)}); err != nil {
		t.Fatal(err)
	}
	if err := g.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if got, want := g.Snapshot(), f.e.Snapshot(); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored snapshot differs:\n got %+v\nwant %+v", got, want)
	}
	for _, id := range []string{"a", "b", "c"} {
		b1, _ := f.e.Balance(id)
		b2, _ := g.Balance(id)
		if !reflect.DeepEqual(b1, b2) {
			t.Errorf("account %s: balance %+v, restored %+v", id, b2, b1)
		}
	}
	// the same taker on both engines: the same fills
	req := OrderRequest{ID: "next", Account: "c", Token: yes, Side: Sell, Price: c(40), Size: sh(15), TIF: FAK}
	r1, err1 := f.e.Place(req, f.at)
	r2, err2 := g.Place(req, f.at)
	if !errors.Is(err1, err2) || len(r1.Fills) != len(r2.Fills) {
		t.Fatalf("next order: %d fills (%v) vs restored %d fills (%v)", len(r1.Fills), err1, len(r2.Fills), err2)
	}
	for i := range r1.Fills {
		if r1.Fills[i].Maker.Order.ID != r2.Fills[i].Maker.Order.ID || r1.Fills[i].Size != r2.Fills[i].Size || r1.Fills[i].Seq != r2.Fills[i].Seq {
			t.Errorf("fill %d: %+v vs restored %+v", i, r1.Fills[i], r2.Fills[i])
		}
	}
	if err := g.CheckInvariants(); err != nil {
		t.Error(err)
	}
	if err := g.Restore(snap); !errors.Is(err, ErrNotFresh) {
		t.Errorf("restore into a used engine: %v, want ErrNotFresh", err)
	}
}

// A snapshot that does not add up (an order's reservation above its
// owner's balance) is refused, not loaded.
func TestRestoreRefusesInconsistentSnapshot(t *testing.T) {
	f := newFixture(t, "a")
	if _, err := f.place("a", yes, Buy, 40, 10, GTC); err != nil {
		t.Fatal(err)
	}
	snap := f.e.Snapshot()
	snap.Accounts[0].Collateral = 1 // cannot back the order
	snap.Deposited = 1 + snap.Markets[0].Escrow
	g := New()
	if err := g.AddMarket(MarketSpec{ID: mkt, Tokens: [2]string{yes, no}, Tick: c(1), MinSize: sh(5)}); err != nil {
		t.Fatal(err)
	}
	if err := g.Restore(snap); err == nil {
		t.Error("an order its owner cannot back was restored")
	}
}

package engine

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	mkt = "0xmarket"
	yes = "yes"
	no  = "no"
)

// u converts a decimal literal in hundredths or ten-thousandths to base
// units: u(0.55) style helpers would need floats, so prices are given in
// cents and sizes in shares.
func c(cents int64) int64   { return cents * Unit / 100 }
func sh(shares int64) int64 { return shares * Unit }

type fixture struct {
	t  *testing.T
	e  *Engine
	n  int
	at time.Time
}

func newFixture(t *testing.T, accounts ...string) *fixture {
	t.Helper()
	e := New()
	if err := e.AddMarket(MarketSpec{ID: mkt, Tokens: [2]string{yes, no}, Tick: c(1), MinSize: sh(5)}); err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		if err := e.Deposit(a, sh(1000)); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{t: t, e: e, at: t0}
	t.Cleanup(func() {
		if err := e.CheckInvariants(); err != nil {
			t.Errorf("invariants: %v", err)
		}
	})
	return f
}

func (f *fixture) place(acct, tok string, side Side, cents, shares int64, tif TIF) (Result, error) {
	f.t.Helper()
	f.n++
	f.at = f.at.Add(time.Millisecond)
	r, err := f.e.Place(OrderRequest{ID: fmt.Sprintf("o%d", f.n), Account: acct, Token: tok, Side: side,
		Price: c(cents), Size: sh(shares), TIF: tif, Expires: f.at.Add(time.Hour)}, f.at)
	if err == nil {
		if cerr := f.e.CheckInvariants(); cerr != nil {
			f.t.Fatalf("after order %d: %v", f.n, cerr)
		}
	}
	return r, err
}

func (f *fixture) mustPlace(acct, tok string, side Side, cents, shares int64, tif TIF) Result {
	f.t.Helper()
	r, err := f.place(acct, tok, side, cents, shares, tif)
	if err != nil {
		f.t.Fatalf("place %s %s %v %d@%d: %v", acct, tok, side, shares, cents, err)
	}
	return r
}

func (f *fixture) coll(acct string) int64 {
	b, _ := f.e.Balance(acct)
	return b.Collateral
}

func TestPriceTimePriority(t *testing.T) {
	f := newFixture(t, "a", "b", "c", "d")
	if err := f.e.Split("a", mkt, sh(100)); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Split("b", mkt, sh(100)); err != nil {
		t.Fatal(err)
	}
	first := f.mustPlace("a", yes, Sell, 60, 10, GTC).Order
	second := f.mustPlace("b", yes, Sell, 60, 10, GTC).Order
	better := f.mustPlace("b", yes, Sell, 59, 10, GTC).Order
	r := f.mustPlace("c", yes, Buy, 60, 15, GTC)
	if len(r.Fills) != 2 {
		t.Fatalf("fills = %d, want 2", len(r.Fills))
	}
	if r.Fills[0].Maker.Order != better || r.Fills[0].Size != sh(10) || r.Fills[0].Taker.Price != c(59) {
		t.Errorf("first fill %+v, want 10 at 59 against the better price", r.Fills[0])
	}
	if r.Fills[1].Maker.Order != first || r.Fills[1].Size != sh(5) {
		t.Errorf("second fill against %s size %d, want the earlier order at 60 for 5", r.Fills[1].Maker.Order.ID, r.Fills[1].Size)
	}
	if second.Filled != 0 || first.Remaining() != sh(5) {
		t.Errorf("queue: first remaining %d, second filled %d", first.Remaining(), second.Filled)
	}
	if r.Order.Status != Matched || r.Making != c(59)*10+c(60)*5 || r.Taking != sh(15) {
		t.Errorf("taker status %v making %d taking %d", r.Order.Status, r.Making, r.Taking)
	}
	// taker paid 10×0.59 + 5×0.60 = 8.9 and holds 15 YES
	if got := f.coll("c"); got != sh(1000)-c(890) {
		t.Errorf("c collateral %d", got)
	}
	if got := f.e.ShareBalance("c", yes); got != sh(15) {
		t.Errorf("c yes %d", got)
	}
}

func TestPartialFillRests(t *testing.T) {
	f := newFixture(t, "a", "b")
	bid := f.mustPlace("a", yes, Buy, 40, 20, GTC).Order
	if err := f.e.Split("b", mkt, sh(50)); err != nil {
		t.Fatal(err)
	}
	r := f.mustPlace("b", yes, Sell, 40, 8, GTC)
	if r.Order.Status != Matched || bid.Status != Live || bid.Filled != sh(8) {
		t.Fatalf("taker %v, maker %v filled %d", r.Order.Status, bid.Status, bid.Filled)
	}
	// a sell larger than the rest fills 12 and rests 3
	r = f.mustPlace("b", yes, Sell, 40, 15, GTC)
	if r.Order.Filled != sh(12) || r.Order.Status != Live || bid.Status != Matched {
		t.Fatalf("taker filled %d status %v, maker %v", r.Order.Filled, r.Order.Status, bid.Status)
	}
	v, _ := f.e.Book(yes, 0)
	if len(v.Bids) != 0 || len(v.Asks) != 1 || v.Asks[0] != (Level{Price: c(40), Size: sh(3)}) {
		t.Errorf("book %+v", v)
	}
	b, _ := f.e.Balance("a")
	if b.ReservedCollateral != 0 || b.Collateral != sh(1000)-c(800) {
		t.Errorf("maker balance %+v", b)
	}
}

func TestOrderTypes(t *testing.T) {
	tests := []struct {
		name       string
		tif        TIF
		size       int64
		wantErr    error
		wantFilled int64
		wantStatus Status
		wantRest   bool
	}{
		{"GTC rests the rest", GTC, 30, nil, 20, Live, true},
		{"GTD rests the rest", GTD, 30, nil, 20, Live, true},
		{"FOK fills completely", FOK, 20, nil, 20, Matched, false},
		{"FOK too big changes nothing", FOK, 21, ErrFOKUnfilled, 0, Canceled, false},
		{"FAK fills part, kills rest", FAK, 30, nil, 20, Canceled, false},
		{"FAK exact", FAK, 20, nil, 20, Matched, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "m", "t")
			ask1 := f.mustPlace("m", no, Buy, 45, 12, GTC).Order // ask of YES at 0.55 via mint
			if err := f.e.Split("m", mkt, sh(8)); err != nil {
				t.Fatal(err)
			}
			ask2 := f.mustPlace("m", yes, Sell, 56, 8, GTC).Order
			before, _ := f.e.Balance("t")
			r, err := f.place("t", yes, Buy, 56, tt.size, tt.tif)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if r.Order.Filled != sh(tt.wantFilled) || r.Order.Status != tt.wantStatus {
				t.Errorf("filled %d status %v, want %d %v", r.Order.Filled, r.Order.Status, sh(tt.wantFilled), tt.wantStatus)
			}
			_, resting := f.e.Order(r.Order.ID)
			if resting != tt.wantRest {
				t.Errorf("resting = %v", resting)
			}
			after, _ := f.e.Balance("t")
			if tt.wantErr != nil {
				if after.Collateral != before.Collateral || after.ReservedCollateral != before.ReservedCollateral || ask1.Filled != 0 || ask2.Filled != 0 {
					t.Errorf("rejected FOK changed state: %+v -> %+v", before, after)
				}
				return
			}
			wantPaid := c(55)*12 + c(56)*8
			if before.Collateral-after.Collateral != wantPaid {
				t.Errorf("paid %d, want %d", before.Collateral-after.Collateral, wantPaid)
			}
			wantRes := int64(0)
			if tt.wantRest {
				wantRes = c(56) * (tt.size - 20)
			}
			if after.ReservedCollateral != wantRes {
				t.Errorf("reserved %d, want %d", after.ReservedCollateral, wantRes)
			}
		})
	}
}

func TestFAKNothingToMatch(t *testing.T) {
	f := newFixture(t, "t")
	r, err := f.place("t", yes, Buy, 50, 10, FAK)
	if !errors.Is(err, ErrFAKUnfilled) || r.Order.Status != Canceled {
		t.Fatalf("err %v status %v", err, r.Order.Status)
	}
	if b, _ := f.e.Balance("t"); b.ReservedCollateral != 0 {
		t.Errorf("reservation left: %+v", b)
	}
}

func TestGTDExpiry(t *testing.T) {
	f := newFixture(t, "m", "t")
	exp := t0.Add(time.Minute)
	o, err := f.e.Place(OrderRequest{ID: "gtd", Account: "m", Token: yes, Side: Buy, Price: c(40), Size: sh(10), TIF: GTD, Expires: exp}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.e.Expire(exp.Add(-time.Nanosecond)); len(got) != 0 {
		t.Fatalf("expired early: %v", got)
	}
	if got := f.e.Expire(exp); len(got) != 1 || got[0] != o.Order || o.Order.Reason != ReasonExpired {
		t.Fatalf("expire = %v", got)
	}
	if b, _ := f.e.Balance("m"); b.ReservedCollateral != 0 {
		t.Errorf("reserved %d after expiry", b.ReservedCollateral)
	}
	// an expired order met before the sweep does not trade
	_, err = f.e.Place(OrderRequest{ID: "gtd2", Account: "m", Token: yes, Side: Buy, Price: c(40), Size: sh(10), TIF: GTD, Expires: exp.Add(time.Minute)}, exp)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.e.Split("t", mkt, sh(10)); err != nil {
		t.Fatal(err)
	}
	r, err := f.e.Place(OrderRequest{ID: "sell", Account: "t", Token: yes, Side: Sell, Price: c(40), Size: sh(10), TIF: FAK}, exp.Add(2*time.Minute))
	if !errors.Is(err, ErrFAKUnfilled) || len(r.Canceled) != 1 || r.Canceled[0].Reason != ReasonExpired {
		t.Fatalf("err %v canceled %v", err, r.Canceled)
	}
	// a GTD order whose expiry is not in the future is refused
	if _, err := f.e.Place(OrderRequest{ID: "late", Account: "m", Token: yes, Side: Buy, Price: c(40), Size: sh(10), TIF: GTD, Expires: t0}, t0); !errors.Is(err, ErrExpired) {
		t.Errorf("err = %v", err)
	}
}

func TestComplementaryMintAndMerge(t *testing.T) {
	f := newFixture(t, "a", "b")
	// BUY NO at 0.45 rests as an ask of YES at 0.55
	f.mustPlace("a", no, Buy, 45, 10, GTC)
	// BUY YES at 0.60 matches it: 10 pairs minted, YES buyer pays 0.55
	r := f.mustPlace("b", yes, Buy, 60, 10, GTC)
	if len(r.Fills) != 1 || r.Fills[0].Kind != Mint || r.Fills[0].Taker.Price != c(55) || r.Fills[0].Maker.Price != c(45) {
		t.Fatalf("fill %+v", r.Fills)
	}
	if f.e.ShareBalance("a", no) != sh(10) || f.e.ShareBalance("b", yes) != sh(10) {
		t.Fatalf("shares a/no %d b/yes %d", f.e.ShareBalance("a", no), f.e.ShareBalance("b", yes))
	}
	if f.coll("a") != sh(1000)-c(450) || f.coll("b") != sh(1000)-c(550) {
		t.Fatalf("collateral a %d b %d", f.coll("a"), f.coll("b"))
	}
	if tot := f.e.Totals(); tot.Escrow != sh(10) {
		t.Fatalf("escrow %d", tot.Escrow)
	}
	// SELL YES at 0.50 rests as an ask; SELL NO at 0.48 (bid of YES at 0.52) merges with it
	f.mustPlace("b", yes, Sell, 50, 10, GTC)
	r = f.mustPlace("a", no, Sell, 48, 10, GTC)
	if len(r.Fills) != 1 || r.Fills[0].Kind != Merge || r.Fills[0].Taker.Price != c(50) || r.Fills[0].Maker.Price != c(50) {
		t.Fatalf("fill %+v", r.Fills)
	}
	if tot := f.e.Totals(); tot.Escrow != 0 {
		t.Fatalf("escrow %d after merge", tot.Escrow)
	}
	if f.coll("a") != sh(1000)-c(450)+c(500) || f.coll("b") != sh(1000)-c(550)+c(500) {
		t.Fatalf("collateral a %d b %d", f.coll("a"), f.coll("b"))
	}
}

func TestBooksMirror(t *testing.T) {
	f := newFixture(t, "a")
	f.mustPlace("a", yes, Buy, 40, 10, GTC)
	f.mustPlace("a", yes, Buy, 41, 5, GTC)
	f.mustPlace("a", no, Buy, 55, 7, GTC)
	y, _ := f.e.Book(yes, 0)
	n, _ := f.e.Book(no, 0)
	wantY := BookView{Bids: []Level{{c(41), sh(5)}, {c(40), sh(10)}}, Asks: []Level{{c(45), sh(7)}}}
	wantN := BookView{Bids: []Level{{c(55), sh(7)}}, Asks: []Level{{c(59), sh(5)}, {c(60), sh(10)}}}
	if fmt.Sprint(y.Bids, y.Asks) != fmt.Sprint(wantY.Bids, wantY.Asks) {
		t.Errorf("yes book %v %v", y.Bids, y.Asks)
	}
	if fmt.Sprint(n.Bids, n.Asks) != fmt.Sprint(wantN.Bids, wantN.Asks) {
		t.Errorf("no book %v %v", n.Bids, n.Asks)
	}
	if d, _ := f.e.Book(yes, 1); len(d.Bids) != 1 || d.Bids[0].Price != c(41) {
		t.Errorf("depth 1: %v", d.Bids)
	}
}

func TestBalanceReservation(t *testing.T) {
	f := newFixture(t, "a")
	// 1000 collateral: 1000 shares at 0.60 = 600 fits, a second 1000 at 0.50 does not
	first := f.mustPlace("a", yes, Buy, 60, 1000, GTC).Order
	if _, err := f.place("a", no, Buy, 50, 1000, GTC); !errors.Is(err, ErrBalance) {
		t.Fatalf("err = %v, want ErrBalance", err)
	}
	f.mustPlace("a", no, Buy, 30, 1000, GTC) // 300 still fits (bid 0.60 vs ask 0.70: no cross)
	if _, err := f.place("a", no, Buy, 20, 1000, GTC); !errors.Is(err, ErrBalance) {
		t.Fatalf("err = %v, want ErrBalance", err)
	}
	if _, err := f.e.Cancel(first.ID, "a", f.at); err != nil {
		t.Fatal(err)
	}
	f.mustPlace("a", no, Buy, 20, 1000, GTC)
	// selling shares one does not hold is refused
	if _, err := f.place("a", yes, Sell, 50, 5, GTC); !errors.Is(err, ErrBalance) {
		t.Fatalf("err = %v, want ErrBalance", err)
	}
	b, _ := f.e.Balance("a")
	if b.ReservedCollateral != c(30)*1000+c(20)*1000 {
		t.Errorf("reserved %d", b.ReservedCollateral)
	}
}

func TestSelfTradePrevention(t *testing.T) {
	f := newFixture(t, "a", "b")
	own := f.mustPlace("a", no, Buy, 45, 10, GTC).Order   // YES ask 0.55
	other := f.mustPlace("b", no, Buy, 44, 10, GTC).Order // YES ask 0.56
	r := f.mustPlace("a", yes, Buy, 56, 10, GTC)
	if own.Status != Canceled || own.Reason != ReasonSelfTrade || len(r.Canceled) != 1 {
		t.Fatalf("own order %v %v", own.Status, own.Reason)
	}
	if other.Status != Matched || r.Order.Filled != sh(10) || r.Fills[0].Maker.Account != "b" {
		t.Fatalf("other %v taker filled %d", other.Status, r.Order.Filled)
	}
	// FOK does not count own liquidity and leaves it in place
	mine := f.mustPlace("a", no, Buy, 45, 10, GTC).Order
	if _, err := f.place("a", yes, Buy, 60, 10, FOK); !errors.Is(err, ErrFOKUnfilled) {
		t.Fatalf("err = %v", err)
	}
	if mine.Status != Live {
		t.Errorf("FOK reject touched own order: %v", mine.Status)
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name  string
		price int64
		size  int64
		tif   TIF
		tok   string
		want  error
	}{
		{"off tick", c(50) + 5000, sh(10), GTC, yes, ErrBadPrice},
		{"zero price", 0, sh(10), GTC, yes, ErrBadPrice},
		{"price one", Unit, sh(10), GTC, yes, ErrBadPrice},
		{"below tick", c(1) - 100, sh(10), GTC, yes, ErrBadPrice},
		{"min price ok", c(1), sh(10), GTC, yes, nil},
		{"max price ok", c(99), sh(10), GTC, yes, nil},
		{"below min size", c(50), sh(5) - SizeLot, GTC, yes, ErrBadSize},
		{"min size ok", c(50), sh(5), GTC, yes, nil},
		{"size not on lot", c(50), sh(5) + 1, GTC, yes, ErrBadSize},
		{"too big", c(50), MaxSize + SizeLot, GTC, yes, ErrBadSize},
		{"bad tif", c(50), sh(10), TIF(9), yes, ErrBadTIF},
		{"unknown token", c(50), sh(10), GTC, "zzz", ErrUnknownToken},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "a")
			_, err := f.e.Place(OrderRequest{ID: fmt.Sprint(i), Account: "a", Token: tt.tok, Side: Buy, Price: tt.price, Size: tt.size, TIF: tt.tif}, t0)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCancelRules(t *testing.T) {
	f := newFixture(t, "a", "b")
	o := f.mustPlace("a", yes, Buy, 40, 10, GTC).Order
	if _, err := f.e.Cancel(o.ID, "b", t0); !errors.Is(err, ErrNotOwner) {
		t.Errorf("other account: %v", err)
	}
	if _, err := f.e.Cancel("nope", "a", t0); !errors.Is(err, ErrOrderNotFound) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := f.e.Cancel(o.ID, "a", t0); err != nil || o.Status != Canceled || o.Reason != ReasonUser {
		t.Errorf("cancel: %v %v", err, o.Status)
	}
	if _, err := f.e.Cancel(o.ID, "a", t0); !errors.Is(err, ErrOrderNotFound) {
		t.Errorf("second cancel: %v", err)
	}
	if _, err := f.place("a", yes, Buy, 40, 10, GTC); err != nil {
		t.Fatal(err)
	}
	f.mustPlace("a", no, Buy, 40, 10, GTC)
	if got := f.e.CancelAll("a", "", t0); len(got) != 2 {
		t.Errorf("cancel all: %d", len(got))
	}
	if _, err := f.e.Place(OrderRequest{ID: "dup", Account: "a", Token: yes, Side: Buy, Price: c(10), Size: sh(5)}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.Place(OrderRequest{ID: "dup", Account: "a", Token: yes, Side: Buy, Price: c(10), Size: sh(5)}, t0); !errors.Is(err, ErrDuplicateOrder) {
		t.Errorf("duplicate: %v", err)
	}
}

func TestResolve(t *testing.T) {
	f := newFixture(t, "a", "b")
	f.mustPlace("a", no, Buy, 30, 100, GTC)
	f.mustPlace("b", yes, Buy, 70, 100, GTC) // mint 100 pairs: a pays 30, b pays 70
	left := f.mustPlace("a", yes, Buy, 10, 10, GTC).Order
	canceled, err := f.e.Resolve(mkt, 0, t0)
	if err != nil || len(canceled) != 1 || canceled[0] != left || left.Reason != ReasonResolved {
		t.Fatalf("resolve: %v %v", err, canceled)
	}
	if f.coll("b") != sh(1000)-c(7000)+sh(100) || f.coll("a") != sh(1000)-c(3000) {
		t.Errorf("after resolution a %d b %d", f.coll("a"), f.coll("b"))
	}
	if _, err := f.place("a", yes, Buy, 10, 10, GTC); !errors.Is(err, ErrMarketClosed) {
		t.Errorf("order on resolved market: %v", err)
	}
	if f.e.Resolved(mkt) != 0 {
		t.Errorf("resolved = %d", f.e.Resolved(mkt))
	}
}

func TestSplitMerge(t *testing.T) {
	f := newFixture(t, "a")
	if err := f.e.Split("a", mkt, sh(2000)); !errors.Is(err, ErrBalance) {
		t.Errorf("split beyond balance: %v", err)
	}
	if err := f.e.Split("a", mkt, sh(10)); err != nil {
		t.Fatal(err)
	}
	f.mustPlace("a", yes, Sell, 90, 6, GTC)
	if err := f.e.Merge("a", mkt, sh(5)); !errors.Is(err, ErrBalance) {
		t.Errorf("merge of reserved shares: %v", err)
	}
	if err := f.e.Merge("a", mkt, sh(4)); err != nil {
		t.Fatal(err)
	}
	if f.coll("a") != sh(994) {
		t.Errorf("collateral %d", f.coll("a"))
	}
}

func TestAddMarketErrors(t *testing.T) {
	e := New()
	ok := MarketSpec{ID: "m", Tokens: [2]string{"x", "y"}, Tick: c(1), MinSize: sh(5)}
	if err := e.AddMarket(ok); err != nil {
		t.Fatal(err)
	}
	bad := []MarketSpec{
		ok,
		{ID: "m2", Tokens: [2]string{"x", "z"}, Tick: c(1)},
		{ID: "m3", Tokens: [2]string{"p", "p"}, Tick: c(1)},
		{ID: "m4", Tokens: [2]string{"p", "q"}, Tick: 300},
		{ID: "m5", Tokens: [2]string{"p", "q"}, Tick: 50},
		{ID: "m6", Tokens: [2]string{"p", "q"}, Tick: c(1), MinSize: 1},
	}
	for _, s := range bad {
		if err := e.AddMarket(s); err == nil {
			t.Errorf("AddMarket(%+v) accepted", s)
		}
	}
}

package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// randomRun drives an engine with n random orders, cancels, splits, merges
// and expiries over three markets of different ticks, checking the cheap
// conservation sums after every step, each fill's settlement rule, and the
// full invariants every checkEvery steps and at the end.
func randomRun(t testing.TB, seed uint64, n, checkEvery int) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	e := New()
	specs := []MarketSpec{
		{ID: "m1", Tokens: [2]string{"m1y", "m1n"}, Tick: c(1), MinSize: sh(5)},
		{ID: "m2", Tokens: [2]string{"m2y", "m2n"}, Tick: Unit / 1000, MinSize: sh(1)},
		{ID: "m3", Tokens: [2]string{"m3y", "m3n"}, Tick: c(10), MinSize: 0},
		{ID: "m4", Tokens: [2]string{"m4y", "m4n"}, Tick: Unit / 10000, MinSize: sh(15)},
	}
	for _, s := range specs {
		if err := e.AddMarket(s); err != nil {
			t.Fatal(err)
		}
	}
	accounts := []string{"a", "b", "c", "d", "e", "f"}
	for _, a := range accounts {
		if err := e.Deposit(a, sh(50_000)); err != nil {
			t.Fatal(err)
		}
	}
	now := t0
	var live []string
	fills := 0
	for i := 0; i < n; i++ {
		now = now.Add(time.Duration(r.IntN(1000)) * time.Millisecond)
		acct := accounts[r.IntN(len(accounts))]
		s := specs[r.IntN(len(specs))]
		switch k := r.IntN(100); {
		case k < 4:
			if err := e.Split(acct, s.ID, SizeLot*int64(1+r.IntN(5000))); err != nil && !errors.Is(err, ErrBalance) {
				t.Fatal(err)
			}
		case k < 6:
			if err := e.Merge(acct, s.ID, SizeLot*int64(1+r.IntN(2000))); err != nil && !errors.Is(err, ErrBalance) {
				t.Fatal(err)
			}
		case k < 20 && len(live) > 0:
			j := r.IntN(len(live))
			id := live[j]
			live[j] = live[len(live)-1]
			live = live[:len(live)-1]
			if o, ok := e.Order(id); ok {
				if _, err := e.Cancel(id, o.Account, now); err != nil {
					t.Fatal(err)
				}
			}
		case k < 22:
			e.Expire(now)
		default:
			ticks := Unit / s.Tick
			mid := ticks/2 + int64(r.IntN(int(ticks/5)+1)) - ticks/10
			p := mid + int64(r.IntN(int(ticks/10)+1)) - ticks/20
			p = max(1, min(ticks-1, p)) * s.Tick
			size := max(s.MinSize, SizeLot*int64(1+r.IntN(3000)))
			req := OrderRequest{
				ID: fmt.Sprintf("o%d", i), Account: acct, Token: s.Tokens[r.IntN(2)],
				Side: Side(r.IntN(2)), Price: p, Size: size, TIF: TIF(r.IntN(4)),
				Expires: now.Add(time.Duration(1+r.IntN(60)) * time.Second),
			}
			res, err := e.Place(req, now)
			switch {
			case err == nil, errors.Is(err, ErrBalance), errors.Is(err, ErrFOKUnfilled), errors.Is(err, ErrFAKUnfilled):
			default:
				t.Fatalf("order %d: %v", i, err)
			}
			for _, f := range res.Fills {
				fills++
				checkFill(t, f)
			}
			if err == nil && res.Order.Status == Live {
				live = append(live, res.Order.ID)
			}
		}
		tot := e.Totals()
		if tot.Collateral+tot.Escrow != tot.Deposited {
			t.Fatalf("step %d: collateral %d + escrow %d != deposited %d", i, tot.Collateral, tot.Escrow, tot.Deposited)
		}
		if i%checkEvery == 0 {
			if err := e.CheckInvariants(); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
	}
	if err := e.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	for i, s := range specs {
		if _, err := e.Resolve(s.ID, i%2, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.CheckInvariants(); err != nil {
		t.Fatalf("after resolution: %v", err)
	}
	if tot := e.Totals(); tot.Escrow != 0 || tot.Collateral != tot.Deposited {
		t.Fatalf("after resolution: %+v", tot)
	}
	if fills == 0 && n >= 1000 {
		t.Fatal("no fills: the random flow does not exercise matching")
	}
}

// checkFill verifies one fill's settlement rule.
func checkFill(t testing.TB, f Fill) {
	t.Helper()
	tk, mk := f.Taker, f.Maker
	if f.Size <= 0 || f.Size%SizeLot != 0 {
		t.Fatalf("fill size %d", f.Size)
	}
	if tk.Account == mk.Account {
		t.Fatalf("self trade %+v", f)
	}
	// the taker never pays more (or receives less) than its limit
	if (tk.Side == Buy && tk.Price > tk.Order.Price) || (tk.Side == Sell && tk.Price < tk.Order.Price) {
		t.Fatalf("taker price %d beyond limit %d", tk.Price, tk.Order.Price)
	}
	if mk.Price != mk.Order.Price {
		t.Fatalf("maker executed at %d, limit %d", mk.Price, mk.Order.Price)
	}
	switch f.Kind {
	case Transfer:
		if tk.Outcome != mk.Outcome || tk.Side == mk.Side || tk.Amount != mk.Amount {
			t.Fatalf("transfer %+v", f)
		}
	case Mint:
		if tk.Outcome == mk.Outcome || tk.Side != Buy || mk.Side != Buy || tk.Amount+mk.Amount != f.Size {
			t.Fatalf("mint %+v", f)
		}
	case Merge:
		if tk.Outcome == mk.Outcome || tk.Side != Sell || mk.Side != Sell || tk.Amount+mk.Amount != f.Size {
			t.Fatalf("merge %+v", f)
		}
	}
}

func TestConservationRandom(t *testing.T) {
	n, every := 100_000, 500
	if testing.Short() {
		n, every = 10_000, 100
	}
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomRun(t, seed, n/2, every) })
	}
}

func FuzzEngine(f *testing.F) {
	f.Add(uint64(1), uint16(200))
	f.Add(uint64(42), uint16(1000))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16) {
		randomRun(t, seed, int(n%3000), 7)
	})
}

func BenchmarkPlaceMatch(b *testing.B) {
	e := New()
	if err := e.AddMarket(MarketSpec{ID: "m", Tokens: [2]string{"y", "n"}, Tick: c(1), MinSize: sh(5)}); err != nil {
		b.Fatal(err)
	}
	for _, a := range []string{"a", "b"} {
		if err := e.Deposit(a, 1e17); err != nil {
			b.Fatal(err)
		}
	}
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("o%d", i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	matched := 0
	for i := 0; i < b.N; i++ {
		// alternate two accounts buying both outcomes around 0.50: about
		// half the orders cross and mint, the rest rest and get matched later
		acct := "a"
		if i%2 == 1 {
			acct = "b"
		}
		tok := "y"
		if r.IntN(2) == 1 {
			tok = "n"
		}
		p := c(int64(45 + r.IntN(11)))
		res, err := e.Place(OrderRequest{ID: ids[i], Account: acct, Token: tok, Side: Buy, Price: p, Size: sh(int64(5 + r.IntN(20))), TIF: GTC}, t0)
		if err != nil {
			b.Fatal(err)
		}
		matched += len(res.Fills)
		if len(e.orders) > 10_000 {
			b.StopTimer()
			e.CancelAll("a", "", t0)
			e.CancelAll("b", "", t0)
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(matched)/float64(b.N), "fills/order")
}

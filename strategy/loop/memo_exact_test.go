package loop

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// randLevels returns 0 to 3 random levels around a price.
func randLevels(rng *rand.Rand) []exchange.PriceLevel {
	var out []exchange.PriceLevel
	for range rng.IntN(4) {
		out = append(out, exchange.PriceLevel{Price: decimal.New(int64(40+rng.IntN(20)), -2), Size: decimal.New(int64(rng.IntN(40)), 0)})
	}
	return out
}

// TestSuspectMemoIsExact holds markSuspects with its memo of the last
// judgements to markSuspects without it, on random books that keep
// their slices, get equal levels in new ones, or move, and orders whose
// prices, sizes and matched sizes change (in new decimals or the same);
// the reads that clear suspicion are played on both.
func TestSuspectMemoIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	hits := 0
	for range 100 {
		mk := func() *Loop {
			return &Loop{orders: map[string]*liveOrder{}, markets: []*marketRun{{hasBook: [2]bool{true, true}}, {hasBook: [2]bool{true, false}}}}
		}
		memo, plain := mk(), mk()
		for i := range 8 {
			side := exchange.Buy
			if rng.IntN(2) == 0 {
				side = exchange.Sell
			}
			in := Intent{Hash: fmt.Sprintf("h%d", i), Outcome: strategy.Outcome(rng.IntN(2)), Side: side,
				Price: decimal.New(int64(40+rng.IntN(20)), -2), Size: decimal.New(int64(1+rng.IntN(30)), 0)}
			market := rng.IntN(2)
			for _, l := range []*Loop{memo, plain} {
				l.orders[in.Hash] = &liveOrder{JournaledOrder: JournaledOrder{Intent: in, State: JLive}, market: market}
			}
		}
		for range 50 {
			for m := range 2 {
				for o := range 2 {
					b := &memo.markets[m].books[o]
					switch rng.IntN(4) {
					case 0:
						b.Bids, b.Asks = randLevels(rng), randLevels(rng)
					case 1:
						b.Bids = slices.Clone(b.Bids)
					}
					plain.markets[m].books[o] = *b
				}
			}
			for h, lo := range memo.orders {
				po := plain.orders[h]
				switch rng.IntN(6) {
				case 0:
					lo.Price = decimal.New(int64(40+rng.IntN(20)), -2)
				case 1:
					lo.SizeMatched = lo.SizeMatched.Add(decimal.NewFromInt(int64(rng.IntN(2))))
				case 2:
					lo.Price = lo.Price.Add(decimal.Zero) // the same value, a new decimal
				}
				po.Price, po.SizeMatched = lo.Price, lo.SizeMatched
				if rng.IntN(2) == 0 { // read: cleared
					lo.suspect, po.suspect = false, false
				}
				po.clear = suspectMemo{}
				if lo.clear.ok && !lo.suspect {
					hits++
				}
			}
			memo.markSuspects()
			plain.markSuspects()
			for h, lo := range memo.orders {
				if lo.suspect != plain.orders[h].suspect {
					t.Fatalf("order %s: suspect %v with the memo, %v without", h, lo.suspect, plain.orders[h].suspect)
				}
			}
		}
	}
	if hits == 0 {
		t.Fatal("the memo never answered")
	}
}

// plainTakeTape is takeTape as it was: every trade looked up, none skipped.
func plainTakeTape(l *Loop, trades []exchange.Trade) {
	byCond := map[string]int{}
	for i, mr := range l.markets {
		if mr.stopped == "" {
			byCond[mr.m.ConditionID] = i
		}
	}
	byTime := func(a, b exchange.Trade) int { return cmp.Compare(a.Timestamp, b.Timestamp) }
	if !slices.IsSortedFunc(trades, byTime) {
		trades = slices.Clone(trades)
		slices.SortStableFunc(trades, byTime)
	}
	newest := map[int]time.Time{}
	for i := range trades {
		l.tapeTrade(&trades[i], byCond, newest)
	}
	l.trimTapes(newest)
}

// TestTapeSkipIsExact holds takeTape, which skips the trades every quoted
// market has taken, to the plain scan, on a sliding window of the tape of
// a few markets (some never trading for a while, some stopped and
// restarted, ties in time, an unknown market, now and then out of order).
func TestTapeSkipIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for range 100 {
		n := 1 + rng.IntN(4)
		mk := func() *Loop {
			l := &Loop{}
			for i := range n {
				l.markets = append(l.markets, &marketRun{m: strategy.Market{ConditionID: fmt.Sprintf("c%d", i)}})
			}
			return l
		}
		skip, plain := mk(), mk()
		var tape []exchange.Trade
		at := int64(1_700_000_000)
		for range 200 {
			for range rng.IntN(5) {
				at += int64(rng.IntN(3))
				c := fmt.Sprintf("c%d", rng.IntN(n+1)) // c<n> is no market of ours
				tape = append(tape, exchange.Trade{ConditionID: c, Timestamp: at, OutcomeIndex: rng.IntN(2),
					Price: exchange.NewNumber(decimal.New(int64(1+rng.IntN(98)), -2)), Size: exchange.NewNumber(decimal.NewFromInt(1))})
			}
			if len(tape) > 20 {
				tape = tape[len(tape)-20:]
			}
			read := slices.Clone(tape)
			if rng.IntN(20) == 0 && len(read) > 1 {
				read[0], read[len(read)-1] = read[len(read)-1], read[0]
			}
			if rng.IntN(10) == 0 {
				i := rng.IntN(n)
				stop := ""
				if skip.markets[i].stopped == "" {
					stop = "stopped"
				}
				skip.markets[i].stopped, plain.markets[i].stopped = stop, stop
			}
			skip.takeTape(&tapeRead{done: true, trades: read})
			plainTakeTape(plain, slices.Clone(read))
			for i := range skip.markets {
				a, b := skip.markets[i], plain.markets[i]
				if !a.lastTape.Equal(b.lastTape) || !slices.Equal(a.trades, b.trades) {
					t.Fatalf("market %d: skipping %v %v, plain %v %v", i, a.lastTape, a.trades, b.lastTape, b.trades)
				}
			}
		}
	}
}

// TestSumMemoIsExact holds the plan's sum of totals, and each market's
// others, to the plain sums, on totals that stay (the very decimals), come
// back equal in new decimals, or change, with intents in flight now and
// then.
func TestSumMemoIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	var m sumMemo
	n := 5
	tot := make([]risk.Totals, 2*n)
	in := make([]bool, n)
	for range 2000 {
		for i := range tot {
			switch rng.IntN(5) {
			case 0: // exponents as Fixed.Decimal gives them, and now and then one finer than a base unit
				exp := func() int32 { return []int32{0, -1, -2, -6, 2, -8}[rng.IntN(6)] }
				tot[i] = risk.Totals{Shares: decimal.New(int64(rng.IntN(500)-100), exp()), AtRisk: decimal.New(int64(rng.IntN(9000)), exp()), Open: rng.IntN(6)}
			case 1:
				tot[i].Shares = tot[i].Shares.Add(decimal.Zero)
			}
		}
		for i := range in {
			if rng.IntN(8) == 0 {
				in[i] = !in[i]
			}
		}
		m.cur, m.curIn = append(m.cur[:0], tot...), append(m.curIn[:0], in...)
		got := m.total()
		var want risk.Totals
		for i := range n {
			want = addTotals(want, tot[2*i])
			if in[i] {
				want = addTotals(want, tot[2*i+1])
			}
		}
		if !sameTotals(got, want) {
			t.Fatalf("sum %v, plain %v", got, want)
		}
		for i := range n {
			o, w := m.others(i), subTotals(want, tot[2*i])
			if !sameTotals(o, w) {
				t.Fatalf("others %d: %v, plain %v", i, o, w)
			}
		}
	}
}

// sameTotals reports whether a and b hold the same decimals: equal, and
// to the exponent (so that they print the same).
func sameTotals(a, b risk.Totals) bool {
	return a.Shares.Equal(b.Shares) && a.Shares.Exponent() == b.Shares.Exponent() && a.AtRisk.Equal(b.AtRisk) &&
		a.AtRisk.Exponent() == b.AtRisk.Exponent() && a.Open == b.Open && a.Shares.String() == b.Shares.String()
}

// TestByHashIsStringOrder holds byHash, which compares the hashes' first
// eight bytes as a number first, to the strings' order, on hashes with
// long common prefixes, short ones, and zero bytes.
func TestByHashIsStringOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	gen := func() string {
		b := []byte("0x00ab")[:rng.IntN(7)]
		for range rng.IntN(12) {
			b = append(b, "0a\x00\xff"[rng.IntN(4)])
		}
		return string(b)
	}
	for range 20000 {
		a, b := &liveOrder{JournaledOrder: JournaledOrder{Intent: Intent{Hash: gen()}}}, &liveOrder{JournaledOrder: JournaledOrder{Intent: Intent{Hash: gen()}}}
		if got, want := byHash(a, b), strings.Compare(a.Hash, b.Hash); got != want {
			t.Fatalf("byHash(%q, %q) = %d, strings.Compare %d", a.Hash, b.Hash, got, want)
		}
	}
}

// TestStatusOrdersSame checks that a market's orders in the last status
// are reused only when every field a status shows is the same: any change
// of an order (its state, matched size, exchange id, price, one order more
// or less, another order) makes the status list them anew.
func TestStatusOrdersSame(t *testing.T) {
	mk := func(h string) *liveOrder {
		return &liveOrder{JournaledOrder: JournaledOrder{Intent: Intent{Hash: h, TokenID: "t", Side: exchange.Buy,
			Price: decimal.RequireFromString("0.4"), Size: decimal.NewFromInt(10)}, State: JLive}}
	}
	los := []*liveOrder{mk("a"), mk("b")}
	var so statusOrders
	if so.same(los) {
		t.Fatal("an empty memo answered")
	}
	so = statusOrders{ok: true, orders: []OrderStatus{orderStatus(los[0]), orderStatus(los[1])}}
	if !so.same(los) {
		t.Fatal("the same orders were not the same")
	}
	for i, change := range []func(lo *liveOrder){
		func(lo *liveOrder) { lo.State = JPartiallyFilled },
		func(lo *liveOrder) { lo.SizeMatched = decimal.NewFromInt(1) },
		func(lo *liveOrder) { lo.ExchangeID = "x" },
		func(lo *liveOrder) { lo.Price = decimal.RequireFromString("0.41") },
		func(lo *liveOrder) { lo.Price = lo.Price.Add(decimal.Zero) }, // equal, another decimal: listed anew (the same output)
		func(lo *liveOrder) { lo.CreatedAt = lo.CreatedAt.Add(time.Second) },
	} {
		lo := mk("b")
		change(lo)
		if so.same([]*liveOrder{los[0], lo}) {
			t.Fatalf("change %d: reused", i)
		}
	}
	if so.same(los[:1]) || so.same(append(los, mk("c"))) || so.same([]*liveOrder{los[0], mk("c")}) {
		t.Fatal("other orders reused")
	}
}

// TestSortByAgeIsByAge holds sortByAge to slices.SortFunc with byAge, on
// orders read at a few times (ties broken by hash), with and without a
// monotonic clock reading.
func TestSortByAgeIsByAge(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	base := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	mono := time.Now()
	for trial := range 500 {
		var s []*liveOrder
		for i := range rng.IntN(60) {
			at := base.Add(time.Duration(rng.IntN(4)) * time.Second).Add(time.Duration(rng.IntN(3)))
			if trial%5 == 0 {
				at = mono.Add(time.Duration(rng.IntN(4)) * time.Second)
			}
			if rng.IntN(10) == 0 {
				at = time.Time{}
			}
			s = append(s, &liveOrder{JournaledOrder: JournaledOrder{Intent: Intent{Hash: fmt.Sprintf("0x%x%d", rng.IntN(5), i)}}, lastRead: at})
		}
		want := slices.Clone(s)
		slices.SortFunc(want, byAge)
		sortByAge(s)
		if !slices.Equal(s, want) {
			t.Fatalf("trial %d: sortByAge differs from byAge", trial)
		}
	}
}

// TestOldestIsByAge holds oldest, which sorts the keys of a backtest's
// orders side by side, to the first k of the orders sorted by byAge.
func TestOldestIsByAge(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	base := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	mono := time.Now()
	for trial := range 500 {
		var s []*liveOrder
		for i := range 1 + rng.IntN(60) {
			at := base.Add(time.Duration(rng.IntN(4)) * time.Second)
			if trial%5 == 0 {
				at = mono.Add(time.Duration(rng.IntN(4)) * time.Second)
			}
			s = append(s, &liveOrder{JournaledOrder: JournaledOrder{Intent: Intent{Hash: fmt.Sprintf("0x%x%d", rng.IntN(5), i)}}, lastRead: at})
		}
		k := rng.IntN(len(s) + 2)
		want := slices.Clone(s)
		slices.SortFunc(want, byAge)
		want = want[:min(k, len(want))]
		if got := oldest(s, k); !slices.Equal(got, want) {
			t.Fatalf("trial %d: oldest(%d) differs from byAge", trial, k)
		}
	}
}

// TestSumMemo2IsExact holds the status's memo of a sum of two decimals to
// the sum, on decimals that stay, come back equal in new decimals, or change.
func TestSumMemo2IsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	var m sumMemo2
	a, b := decimal.NewFromInt(1), decimal.NewFromInt(2)
	for range 2000 {
		switch rng.IntN(3) {
		case 0:
			a = decimal.New(int64(rng.IntN(1000)), -int32(rng.IntN(4)))
		case 1:
			b = b.Add(decimal.Zero)
		}
		if got, want := m.add(a, b), a.Add(b); got.String() != want.String() || got.Exponent() != want.Exponent() {
			t.Fatalf("%s + %s: memo %s, sum %s", a, b, got, want)
		}
	}
}

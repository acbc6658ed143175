package sim

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// flowTrades runs a fresh manual exchange with the flow for d and returns
// a fingerprint of every trade.
func flowTrades(t *testing.T, seed uint64, d time.Duration) []string {
	t.Helper()
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	ex, err := New(Config{Seed: seed, Markets: 4, Manual: true, Start: start, NoRateLimits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if err := ex.Advance(d); err != nil {
		t.Fatal(err)
	}
	if err := ex.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	var out []string
	for _, tr := range ex.data.trades {
		out = append(out, fmt.Sprintf("%s %s %d %v %d@%d", tr.id, tr.walletL, tr.outcome, tr.side, tr.size, tr.price))
	}
	return out
}

func TestFlowDeterministic(t *testing.T) {
	a := flowTrades(t, 5, 10*time.Minute)
	b := flowTrades(t, 5, 10*time.Minute)
	if len(a) == 0 {
		t.Fatal("no trades in 10 minutes of flow")
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("same seed, different trades")
	}
	c := flowTrades(t, 6, 10*time.Minute)
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("different seeds, same trades")
	}
}

func TestFlowFillsAQuotingAccount(t *testing.T) {
	env := setup(t, 1, withFlow(true))
	a := env.accs[0]
	ctx := context.Background()
	var filled decimal.Decimal
	for round := 0; round < 20; round++ {
		// quote one tick inside the background ladder on every open market
		for _, s := range env.ex.markets {
			if s.closed || s.m.TickSize.String() == "0.1" {
				continue
			}
			fair, _ := env.ex.FairPrice(s.m.TokenIDs[0])
			tick := s.m.TickSize.InexactFloat64()
			bid := math.Floor((fair-0.01)/tick) * tick
			ask := math.Ceil((fair+0.01)/tick) * tick
			if bid < tick || ask > 1-tick {
				continue
			}
			size := decimal.Max(s.m.MinOrderSize, decimal.NewFromInt(10)).String()
			prec := int32(-s.m.TickSize.Exponent())
			res := a.place(t,
				a.order(t, s, 0, exchange.Buy, decimal.NewFromFloat(bid).Round(prec).String(), size, exchange.GTC),
				a.order(t, s, 1, exchange.Buy, decimal.NewFromFloat(1-ask).Round(prec).String(), size, exchange.GTC))
			for _, r := range res {
				if !r.Success {
					t.Fatalf("place: %+v", r)
				}
			}
		}
		if err := env.ex.Advance(30 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	trades, err := a.client.Trades(ctx, exchange.TradesParams{User: a.creds.Wallet, TakerOnly: exchange.Ptr(false), Limit: exchange.Ptr(1000)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trades {
		filled = filled.Add(tr.Size.Decimal)
	}
	if len(trades) == 0 {
		t.Fatal("a quoting account got no fills in 10 minutes of flow")
	}
	t.Logf("%d fills, %s shares", len(trades), filled)
	// the books are never empty
	for _, s := range env.ex.markets {
		if s.closed {
			continue
		}
		b, err := env.ex.Book(s.m.TokenIDs[0])
		if err != nil || len(b.Bids) == 0 || len(b.Asks) == 0 {
			t.Errorf("market %s book %v %v", s.m.ConditionID, err, b)
		}
	}
}

func TestMarketsResolveAtEndDate(t *testing.T) {
	env := setup(t, 2)
	a, b := env.accs[0], env.accs[1]
	s := env.openMarket(false)
	// a buys 10 outcome-0 shares at 0.30 from b
	if res := b.place(t, b.order(t, s, 0, exchange.Sell, "0.3", "10", exchange.GTC)); !res[0].Success {
		t.Fatalf("%+v", res[0])
	}
	if res := a.place(t, a.order(t, s, 0, exchange.Buy, "0.3", "10", exchange.FOK)); !res[0].Success {
		t.Fatalf("%+v", res[0])
	}
	if err := env.ex.Advance(s.m.EndDate.Sub(env.ex.Now()) + time.Second); err != nil {
		t.Fatal(err)
	}
	if !s.closed || s.winner < 0 {
		t.Fatalf("market not resolved at its end date: closed %v winner %d", s.closed, s.winner)
	}
	cps, err := a.client.ClosedPositions(context.Background(), exchange.ClosedPositionsParams{User: a.creds.Wallet})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, cp := range cps {
		if cp.ConditionID == s.m.ConditionID {
			found = true
			want := decimal.RequireFromString("-3") // paid 3, worth nothing
			if s.winner == 0 {
				want = decimal.NewFromInt(7) // paid 3, redeemed 10
			}
			if !cp.RealizedPnl.Decimal.Equal(want) || !cp.TotalBought.Decimal.Equal(decimal.NewFromInt(10)) ||
				!cp.AvgPrice.Decimal.Equal(decimal.RequireFromString("0.3")) {
				t.Errorf("closed position %+v, want realized %s", cp, want)
			}
		}
	}
	if !found {
		t.Fatalf("no closed position for the resolved market: %+v", cps)
	}
}

package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
)

// The daemon finds its fills in GET /builder/trades?maker_address=…: each
// fill of a resting order with a builder code is a MAKER trade naming the
// order (maker_orders[].order_id, matched_amount); `after` (strictly after,
// Unix seconds) and next_cursor paging select what is new.
func TestBuilderTradesAttributeMakerFills(t *testing.T) {
	env := setup(t, 1)
	a := env.accs[0]
	b := env.addAccount(AccountOptions{Fund: decimal.NewFromInt(10_000), Shares: decimal.NewFromInt(1000)})
	s := env.openMarket(false)
	key, _ := signer.ParseKey(a.creds.PrivateKey)
	code := "0x" + strings.Repeat("cd", 32)
	as, err := signer.New(signer.DefaultConfig(), signer.Account{Key: key, Owner: a.creds.APIKey, Builder: code})
	if err != nil {
		t.Fatal(err)
	}
	// 120 resting bids of a's, each filled by one of b's sells: 120 MAKER trades, two pages.
	const n = 120
	ids := map[string]bool{}
	for range n {
		so, err := as.Sign(signer.OrderRequest{TokenID: s.m.TokenIDs[0], ConditionID: s.m.ConditionID, Side: exchange.Buy,
			Price: decimal.RequireFromString("0.3"), Size: decimal.NewFromInt(5), TickSize: s.m.TickSize, OrderType: exchange.GTC})
		if err != nil {
			t.Fatal(err)
		}
		res := a.place(t, so.Item)
		if !res[0].Success {
			t.Fatalf("%+v", res[0])
		}
		ids[res[0].OrderID] = true
	}
	start := env.ex.Now()
	if err := env.ex.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	for range n {
		if res := b.place(t, b.order(t, s, 0, exchange.Sell, "0.3", "5", exchange.FAK)); !res[0].Success {
			t.Fatalf("%+v", res[0])
		}
	}
	c := env.client()
	seen := map[string]decimal.Decimal{}
	for tr, err := range c.AllBuilderTrades(bg, exchange.BuilderTradesParams{MakerAddress: a.creds.Address, After: exchange.Ptr(start.Unix())}) {
		if err != nil {
			t.Fatal(err)
		}
		if tr.Type != "MAKER" || len(tr.MakerOrders) != 1 {
			t.Fatalf("trade %+v: want a MAKER trade with one maker order", tr)
		}
		mo := tr.MakerOrders[0]
		if !ids[mo.OrderID] || !strings.EqualFold(mo.MakerAddress, a.creds.Address) {
			t.Fatalf("maker order %+v is not one of a's", mo)
		}
		seen[tr.ID+"/"+mo.OrderID] = seen[tr.ID+"/"+mo.OrderID].Add(mo.MatchedAmount)
	}
	if len(seen) != n {
		t.Fatalf("%d distinct trades over the pages, want %d", len(seen), n)
	}
	for k, v := range seen {
		if !v.Equal(decimal.NewFromInt(5)) {
			t.Fatalf("trade %s matched %s, want 5", k, v)
		}
	}
	later := env.ex.Now().Unix()
	page, err := c.BuilderTrades(bg, exchange.BuilderTradesParams{MakerAddress: a.creds.Address, After: exchange.Ptr(later)})
	if err != nil || len(page.Data) != 0 {
		t.Fatalf("trades after the last one: %v, %v", page, err)
	}
}

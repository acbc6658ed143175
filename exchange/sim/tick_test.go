package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
	"github.com/mmbot/mmbot/signer"
)

// ChangeTick changes a market's tick for placements at once, and its
// books report it per token: the named token's at once, the other's only
// when a later change names it, as after a tick_size_change of one token.
func TestChangeTickOneToken(t *testing.T) {
	env := setup(t, 1)
	s := env.openMarket(false)
	a := env.accs[0]
	cli := env.client()
	ctx := context.Background()
	ticks := func() [2]string {
		t.Helper()
		bs, err := cli.Books(ctx, []string{s.m.TokenIDs[0], s.m.TokenIDs[1]})
		if err != nil {
			t.Fatal(err)
		}
		var out [2]string
		for _, b := range bs {
			out[outcomeOf(s, b.AssetID)] = b.TickSize.String()
		}
		return out
	}
	old := s.tickSize.String()
	if got := ticks(); got != [2]string{old, old} {
		t.Fatalf("books before the change report %v, want %s", got, old)
	}
	fine := decimal.RequireFromString("0.001")
	if old == "0.001" {
		fine = decimal.RequireFromString("0.0001")
	}
	if err := env.ex.ChangeTick(s.m.ConditionID, fine, s.m.TokenIDs[0]); err != nil {
		t.Fatal(err)
	}
	if got := ticks(); got != [2]string{fine.String(), old} {
		t.Errorf("after a change of token 0: books report %v, want [%s %s]", got, fine, old)
	}
	env.ex.mu.Lock()
	mk := env.ex.bookMarket(s)
	env.ex.mu.Unlock()
	if !mk.MinimumTickSize.Equal(fine) {
		t.Errorf("GET /markets says tick %s, want %s", mk.MinimumTickSize, fine)
	}
	// Placements of both tokens are on the new grid.
	price := decimal.RequireFromString("0.2").Add(fine).String()
	for o := range 2 {
		res := a.place(t, a.orderTick(t, s, o, exchange.Buy, price, "10", fine))
		if !res[0].Success {
			t.Errorf("outcome %d: an order at %s on the new grid: %s", o, price, res[0].ErrorMsg)
		}
	}
	if err := env.ex.ChangeTick(s.m.ConditionID, fine, s.m.TokenIDs[1]); err != nil {
		t.Fatal(err)
	}
	if got := ticks(); got != [2]string{fine.String(), fine.String()} {
		t.Errorf("after the other token's change: %v, want both %s", got, fine)
	}
	if err := env.ex.ChangeTick(s.m.ConditionID, decimal.RequireFromString("0.02")); err == nil {
		t.Error("tick 0.02 accepted")
	}
	if err := env.ex.ChangeTick("0xnope", fine); !errors.Is(err, engine.ErrUnknownMarket) {
		t.Errorf("unknown market: %v", err)
	}
	if err := env.ex.ChangeTick(s.m.ConditionID, fine, "nope"); err == nil || !strings.Contains(err.Error(), "not one of the market's") {
		t.Errorf("unknown token: %v", err)
	}
}

// orderTick signs one order for a market whose tick is now tick.
func (ta *testAccount) orderTick(t *testing.T, s *mstate, outcome int, side exchange.Side, price, size string, tick decimal.Decimal) exchange.PlacementItem {
	t.Helper()
	so, err := ta.signer.Sign(signer.OrderRequest{
		TokenID: s.m.TokenIDs[outcome], ConditionID: s.m.ConditionID, Side: side,
		Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size),
		TickSize: tick, MinSize: s.m.MinOrderSize, NegRisk: s.m.NegRisk, OrderType: exchange.GTC,
	})
	if err != nil {
		t.Fatal(err)
	}
	return so.Item
}

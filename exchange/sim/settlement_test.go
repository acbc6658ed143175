package sim

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
)

func withSettlement(delay, confirm time.Duration, failRate float64) setupOpt {
	return func(c *Config) {
		c.Settlement = SettlementConfig{Delay: delay, Confirm: confirm}
		c.Faults.SettleFailRate = failRate
	}
}

// builderStatus returns the status of the one builder trade of a's orders.
func builderStatus(t *testing.T, env *testEnv, maker string) string {
	t.Helper()
	page, err := env.client().BuilderTrades(bg, exchange.BuilderTradesParams{MakerAddress: maker})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 {
		t.Fatalf("%d builder trades, want 1", len(page.Data))
	}
	return page.Data[0].Status
}

// Issue 20 point 6: a match settles over time (MATCHED → MINED →
// CONFIRMED), the shares bought are usable only from MINED, and a match
// drawn to fail goes RETRYING → FAILED and is reverted: both parties' balances
// are back where they were.
func TestSettlementOverTime(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failRate float64
		statuses [3]string // at the match, after the delay, after the confirmation
	}{
		{"settles", 0, [3]string{exchange.TradeMatched, exchange.TradeMined, exchange.TradeConfirmed}},
		{"fails", 1, [3]string{exchange.TradeMatched, exchange.TradeRetrying, exchange.TradeFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := setup(t, 1, withSettlement(2*time.Second, 4*time.Second, tc.failRate))
			a := env.accs[0]
			b := env.addAccount(AccountOptions{Fund: decimal.NewFromInt(10_000), Shares: decimal.NewFromInt(1000)})
			s := env.openMarket(false)
			tok := s.m.TokenIDs[0]
			key, _ := signer.ParseKey(a.creds.PrivateKey)
			as, err := signer.New(signer.DefaultConfig(), signer.Account{Key: key, Owner: a.creds.APIKey, Builder: "0x" + strings.Repeat("cd", 32)})
			if err != nil {
				t.Fatal(err)
			}
			a.signer = as
			beforeA, _ := env.ex.Balance(a.creds.Address)
			beforeB, _ := env.ex.Balance(b.creds.Address)
			if res := a.place(t, a.order(t, s, 0, exchange.Buy, "0.3", "10", exchange.GTC)); !res[0].Success {
				t.Fatalf("%+v", res[0])
			}
			if res := b.place(t, b.order(t, s, 0, exchange.Sell, "0.3", "10", exchange.FAK)); !res[0].Success {
				t.Fatalf("%+v", res[0])
			}
			held := beforeA.Shares[tok].Add(decimal.NewFromInt(10))
			if st := builderStatus(t, env, a.creds.Address); st != tc.statuses[0] {
				t.Fatalf("at the match: %s, want %s", st, tc.statuses[0])
			}
			bal, _ := env.ex.Balance(a.creds.Address)
			if !bal.Shares[tok].Equal(held) || !bal.PendingShares[tok].Equal(decimal.NewFromInt(10)) {
				t.Fatalf("after the match: %s shares, %s pending; want %s and 10", bal.Shares[tok], bal.PendingShares[tok], held)
			}
			// The 10 shares bought are not usable yet: a SELL of all held is refused.
			res := a.place(t, a.order(t, s, 0, exchange.Sell, "0.9", held.String(), exchange.GTC))
			if res[0].Success || !strings.Contains(res[0].ErrorMsg, "not enough balance") {
				t.Fatalf("selling unsettled shares: %+v, want refused for balance", res[0])
			}
			if err := env.ex.Advance(2 * time.Second); err != nil {
				t.Fatal(err)
			}
			if st := builderStatus(t, env, a.creds.Address); st != tc.statuses[1] {
				t.Fatalf("after the delay: %s, want %s", st, tc.statuses[1])
			}
			if err := env.ex.Advance(4 * time.Second); err != nil {
				t.Fatal(err)
			}
			if st := builderStatus(t, env, a.creds.Address); st != tc.statuses[2] {
				t.Fatalf("after the confirmation: %s, want %s", st, tc.statuses[2])
			}
			afterA, _ := env.ex.Balance(a.creds.Address)
			afterB, _ := env.ex.Balance(b.creds.Address)
			if tc.failRate == 1 {
				if !afterA.Shares[tok].Equal(beforeA.Shares[tok]) || !afterA.Collateral.Equal(beforeA.Collateral) ||
					!afterB.Shares[tok].Equal(beforeB.Shares[tok]) || !afterB.Collateral.Equal(beforeB.Collateral) {
					t.Fatalf("failed match not reverted: a %v → %v, b %v → %v", beforeA, afterA, beforeB, afterB)
				}
				if _, failed := env.ex.SettlementStats(); failed != 1 {
					t.Fatalf("%d failed settlements counted, want 1", failed)
				}
				return
			}
			if !afterA.Shares[tok].Equal(held) || !afterA.PendingShares[tok].IsZero() {
				t.Fatalf("settled: %s shares (%s pending), want %s and none", afterA.Shares[tok], afterA.PendingShares[tok], held)
			}
			if res := a.place(t, a.order(t, s, 0, exchange.Sell, "0.9", held.String(), exchange.GTC)); !res[0].Success {
				t.Fatalf("selling settled shares: %+v", res[0])
			}
		})
	}
}

func TestSettlementConfigRefused(t *testing.T) {
	for _, c := range []Config{
		{Settlement: SettlementConfig{Delay: -time.Second}},
		{Faults: Faults{SettleFailRate: 0.1}},
		{Settlement: SettlementConfig{Delay: time.Second}, Faults: Faults{SettleFailRate: 1.5}},
	} {
		c.Markets, c.Manual = 1, true
		if _, err := New(c); err == nil {
			t.Errorf("config %+v accepted", c.Settlement)
		}
	}
}

// Issue 20 point 7: Faults.NotReady answers every request 503 "service not
// ready" with a Retry-After, which the client reads as exchange.ErrNotReady.
func TestNotReadyFault(t *testing.T) {
	env := setup(t, 0)
	c := env.client()
	if err := env.ex.SetFaults(Faults{NotReady: true}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Markets(bg, "")
	var ae *exchange.APIError
	if !errors.Is(err, exchange.ErrNotReady) || !errors.As(err, &ae) || ae.RetryAfter != time.Second {
		t.Fatalf("while not ready: %v", err)
	}
	if err := env.ex.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Markets(bg, ""); err != nil {
		t.Fatalf("ready again: %v", err)
	}
}

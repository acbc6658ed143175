package main

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

// Issue 20 point 6: the statement lists the trades that failed at
// settlement, and their fills are taken back: YES2's second BUY (5 @0.34)
// failed, so YES2 holds 5, not 10 (the reversal shows as a fill: SELL 5
// @0.34), and its PnL is that of 5 shares at cost 1.50 marked at 0.34.
func TestStatementFailedTrades(t *testing.T) {
	path, s := stmtJournal(t)
	o, err := s.OrderByExchangeID("x-6")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx *state.Tx) error {
		_, _, err := tx.PutTrade(state.Trade{ID: "trade-12", OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID,
			Side: exchange.Buy, Price: decimal.RequireFromString("0.34"), Size: decimal.NewFromInt(5), Status: state.TradeFailed,
			MatchedAt: stmtAt(12), UpdatedAt: stmtAt(13)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runStatementCmd(t, stmtNow, "--state", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"0xbeef00…0002  YES      3      15      4.9       0     5         0.34  last fill  0.1       0.1         0.2\n",
		"1 trades failed at settlement; their fills are reversed (position, collateral, PnL):\n",
		"trade trade-12",
		"BUY 5 @ 0.34",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the statement lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = runStatementCmd(t, stmtNow, "--state", path, "--json")
	if code != 0 || !strings.Contains(errOut, "1 trades failed at settlement") {
		t.Fatalf("--json: exit %d, stderr %q: want the failed trades on stderr", code, errOut)
	}
}

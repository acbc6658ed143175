package ledger_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/ledger"
	"github.com/mmbot/mmbot/state"
)

// Issue 20 point 6: a trade that failed at settlement is listed, and its
// fill, taken back by the journal, counts for nothing in the PnL and the
// position: the statement equals the one of a journal without that fill.
func TestStatementFailedTrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mmbot.db")
	s, err := state.Open(path, state.Options{Account: "0xabc", NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Check(); err != nil {
			t.Errorf("journal check: %v", err)
		}
		_ = s.Close()
	})
	b := &journalBuilder{t: t, s: s}
	o1 := b.order(yes1, cond1, 0, exchange.Buy, "0.40", "10", 1, state.Live)
	b.fill(o1, "0.40", "10", "0", 2, state.Filled, "10")
	o2 := b.order(yes1, cond1, 0, exchange.Buy, "0.50", "10", 3, state.Live)
	b.fill(o2, "0.50", "10", "0", 4, state.Filled, "10")
	o3 := b.order(yes1, cond1, 0, exchange.Sell, "0.60", "5", 5, state.Live)
	b.fill(o3, "0.60", "5", "0", 6, state.Filled, "5")
	b.update(func(tx *state.Tx) error {
		_, _, err := tx.PutTrade(state.Trade{ID: "t2", OrderHash: o2.Hash, ConditionID: cond1, TokenID: yes1, Side: exchange.Buy,
			Price: dec("0.50"), Size: dec("10"), Status: state.TradeFailed, MatchedAt: at(4), UpdatedAt: at(7)})
		return err
	})
	j, r := load(t, s, ledger.Period{To: at(30)}, ledger.Options{Interval: 5 * time.Minute})
	failed := j.FailedTrades()
	if len(failed) != 1 || failed[0].ID != "t2" || j.Reversals() != 1 {
		t.Fatalf("failed trades %+v, %d reversals; want t2 and 1", failed, j.Reversals())
	}
	y := tokenOf(t, r, yes1)
	// Left: bought 10 @0.40 (4.00), sold 5 @0.60 (3.00): 5 held, cash −1.00;
	// marked at the last fill price (0.60: a reversal marks nothing) 3.00:
	// PnL 2.00.
	if !y.Position.Equal(dec("5")) {
		t.Errorf("position %s, want 5", y.Position)
	}
	if !y.PnL.Equal(dec("2")) {
		t.Errorf("PnL %s, want 2", y.PnL)
	}
	// Out of the period: not listed.
	j2, err := ledger.Load(s, ledger.Period{From: at(1), To: at(7)})
	if err != nil {
		t.Fatal(err)
	}
	if len(j2.FailedTrades()) != 0 {
		t.Fatalf("a trade failed at minute 7 listed in a period ending at 7: %+v", j2.FailedTrades())
	}
}

package ledger_test

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/ledger"
)

// Pruning removes final orders with nothing matched; the statement of the
// journal keeps every fill, the same PnL per token and each token's market
// and outcome (kept orders with fills name them). Only the order and cancel
// counts lose the pruned orders.
func TestStatementAfterPruning(t *testing.T) {
	_, w := testJournal(t)
	p := ledger.Period{To: at(30)}
	o := ledger.Options{Interval: 5 * time.Minute}
	_, before := load(t, w, p, o)
	// o4 (canceled at 15, nothing matched) and o8 (failed) go; o3, canceled
	// with 12 matched, stays.
	if n, more, err := w.Prune(at(1000), 100); err != nil || n != 2 || more {
		t.Fatalf("Prune = %d %v %v, want 2 orders", n, more, err)
	}
	j, after := load(t, w, p, o)
	if j.Fills() != 6 || after.Total.Fills != before.Total.Fills {
		t.Fatalf("fills %d, %d; want 6, %d", j.Fills(), after.Total.Fills, before.Total.Fills)
	}
	if !after.Total.PnL.Equal(before.Total.PnL) || !after.Total.Realized.Equal(before.Total.Realized) {
		t.Errorf("PnL %s realized %s after pruning, %s %s before", after.Total.PnL, after.Total.Realized, before.Total.PnL, before.Total.Realized)
	}
	for _, tok := range []string{yes1, no1, yes2} {
		b, a := tokenOf(t, before, tok), tokenOf(t, after, tok)
		if !a.Realized.Equal(b.Realized) || !a.Volume.Equal(b.Volume) || after.Run.Labels[tok] != before.Run.Labels[tok] {
			t.Errorf("token %s: realized %s volume %s label %q after, %s %s %q before", tok, a.Realized, a.Volume,
				after.Run.Labels[tok], b.Realized, b.Volume, before.Run.Labels[tok])
		}
	}
	if after.Total.OrdersSent != before.Total.OrdersSent-1 || after.Total.CancelsSent != before.Total.CancelsSent-1 {
		t.Errorf("orders %d cancels %d after pruning, %d %d before: want one fewer each (o4)",
			after.Total.OrdersSent, after.Total.CancelsSent, before.Total.OrdersSent, before.Total.CancelsSent)
	}
}

package backtest

import (
	"errors"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// scenario is the hand-computed run of TestAccumulator (see the comments
// there for the arithmetic).
func scenario(t *testing.T) *Results {
	acc := NewAccumulator(AccumulatorConfig{Run: RunInfo{Mode: ModeQueue, Fees: Fees{TakerBps: dec("100")},
		Latency: Latency{Order: Constant(50 * time.Millisecond)}, Data: "rec.jsonl.gz", Strategy: "bands"}})
	a := acc.Token("A")
	a.OnBook(sec(0), bookTop(t, "0.48", "0.52"))
	a.OnPlace(sec(0), VirtualOrder{ID: "b1", Side: exchange.Buy, Price: fx(t, "0.49"), Size: fx(t, "100")})
	a.OnPlace(sec(0), VirtualOrder{ID: "s1", Side: exchange.Sell, Price: fx(t, "0.51"), Size: fx(t, "100")})
	a.OnQuote(sec(0), fx(t, "0.49"), fx(t, "0.51"))
	a.OnFill(Fill{OrderID: "b1", Side: exchange.Buy, Price: fx(t, "0.49"), Size: fx(t, "100"), Time: sec(30), First: true, Wait: 30 * time.Second, Reason: FillQueue})
	a.OnBook(sec(31), bookTop(t, "0.47", "0.49"))
	a.OnBook(sec(40), bookTop(t, "0.50", "0.52"))
	a.OnFill(Fill{OrderID: "s1", Side: exchange.Sell, Price: fx(t, "0.51"), Size: fx(t, "60"), Remaining: fx(t, "40"), Time: sec(90), First: true, Wait: 90 * time.Second, Reason: FillQueue})
	a.OnPlace(sec(95), VirtualOrder{ID: "t1", Side: exchange.Buy, Price: fx(t, "0.52"), Size: fx(t, "10")})
	a.OnFill(Fill{OrderID: "t1", Side: exchange.Buy, Price: fx(t, "0.52"), Size: fx(t, "10"), Time: sec(95), Taker: true, First: true, Reason: FillTaker})
	a.OnCancel(sec(96))
	a.OnBook(sec(100), bookTop(t, "0.55", "0.57"))
	acc.OnReward(sec(120), RewardScore{Ours: 3, Total: 12}, 1)
	a.OnResolve(sec(150), dec("1"))
	a.OnBook(sec(160), bookTop(t, "0.10", "0.20")) // ignored: resolved
	r, err := acc.Finish(sec(170))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Finish(sec(171)); !errors.Is(err, ErrFinished) {
		t.Errorf("second Finish = %v", err)
	}
	return r
}

// bookTop is a book of one level a side, 100 shares each.
func bookTop(t *testing.T, bid, ask string) *FixedBook {
	return &FixedBook{Bids: []Level{{fx(t, bid), fx(t, "100")}}, Asks: []Level{{fx(t, ask), fx(t, "100")}}}
}

package synthetic

import (
	"errors"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// Scenario is the hand-computed run of TestAccumulator (see the comments
// there for the arithmetic).
func Scenario(t *testing.T) *accounting.Results {
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{Run: accounting.RunInfo{Mode: fillmodel.ModeQueue, Fees: fillmodel.Fees{TakerBps: fixture.Dec("100")},
		Latency: fillmodel.Latency{Order: fillmodel.Constant(50 * time.Millisecond)}, Data: "rec.jsonl.gz", Strategy: "bands"}})
	a := acc.Token("A")
	a.OnBook(fixture.Sec(0), bookTop(t, "0.48", "0.52"))
	a.OnPlace(fixture.Sec(0), fillmodel.VirtualOrder{ID: "b1", Side: exchange.Buy, Price: fixture.Fx(t, "0.49"), Size: fixture.Fx(t, "100")})
	a.OnPlace(fixture.Sec(0), fillmodel.VirtualOrder{ID: "s1", Side: exchange.Sell, Price: fixture.Fx(t, "0.51"), Size: fixture.Fx(t, "100")})
	a.OnQuote(fixture.Sec(0), fixture.Fx(t, "0.49"), fixture.Fx(t, "0.51"))
	a.OnFill(fillmodel.Fill{OrderID: "b1", Side: exchange.Buy, Price: fixture.Fx(t, "0.49"), Size: fixture.Fx(t, "100"), Time: fixture.Sec(30), First: true, Wait: 30 * time.Second, Reason: fillmodel.FillQueue})
	a.OnBook(fixture.Sec(31), bookTop(t, "0.47", "0.49"))
	a.OnBook(fixture.Sec(40), bookTop(t, "0.50", "0.52"))
	a.OnFill(fillmodel.Fill{OrderID: "s1", Side: exchange.Sell, Price: fixture.Fx(t, "0.51"), Size: fixture.Fx(t, "60"), Remaining: fixture.Fx(t, "40"), Time: fixture.Sec(90), First: true, Wait: 90 * time.Second, Reason: fillmodel.FillQueue})
	a.OnPlace(fixture.Sec(95), fillmodel.VirtualOrder{ID: "t1", Side: exchange.Buy, Price: fixture.Fx(t, "0.52"), Size: fixture.Fx(t, "10")})
	a.OnFill(fillmodel.Fill{OrderID: "t1", Side: exchange.Buy, Price: fixture.Fx(t, "0.52"), Size: fixture.Fx(t, "10"), Time: fixture.Sec(95), Taker: true, First: true, Reason: fillmodel.FillTaker})
	a.OnCancel(fixture.Sec(96))
	a.OnBook(fixture.Sec(100), bookTop(t, "0.55", "0.57"))
	acc.OnReward(fixture.Sec(120), fillmodel.RewardScore{Ours: 3, Total: 12, Earned: 250_000}, 1)
	a.OnResolve(fixture.Sec(150), fixture.Dec("1"))
	a.OnBook(fixture.Sec(160), bookTop(t, "0.10", "0.20")) // ignored: resolved
	r, err := acc.Finish(fixture.Sec(170))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Finish(fixture.Sec(171)); !errors.Is(err, accounting.ErrFinished) {
		t.Errorf("second Finish = %v", err)
	}
	return r
}

// bookTop is a book of one level a side, 100 shares each.
func bookTop(t *testing.T, bid, ask string) *recording.FixedBook {
	return &recording.FixedBook{Bids: []recording.Level{{Price: fixture.Fx(t, bid), Size: fixture.Fx(t, "100")}}, Asks: []recording.Level{{Price: fixture.Fx(t, ask), Size: fixture.Fx(t, "100")}}}
}

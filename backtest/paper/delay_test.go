package paper

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

// In a market with a matching delay, a virtual order answers "delayed"
// and a trade through its price before the delay has passed does not fill
// it; one after does.
func TestPaperMarketDelay(t *testing.T) {
	v, f, clk := newPaperSetup(t, fillmodel.ModeOptimistic, func(c *Config) { c.Markets[0].Delay = 3 * time.Second })
	mustBooks(t, v, fixture.Yes, fixture.No)
	res := mustPlace(t, v, fixture.Item(fixture.Yes, exchange.Buy, "0.5", "10"))
	if res[0].Status != exchange.PlaceDelayed {
		t.Fatalf("placement %+v, want delayed", res[0])
	}
	id := res[0].OrderID
	clk.Add(time.Second)
	f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "200", clk.Now(), "0xa")
	mustBooks(t, v, fixture.Yes, fixture.No)
	if o := mustOrder(t, v, id); !o.SizeMatched.IsZero() {
		t.Fatalf("filled 1 s into a 3 s delay: %+v", o)
	}
	clk.Add(3 * time.Second)
	f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "200", clk.Now(), "0xb")
	mustBooks(t, v, fixture.Yes, fixture.No)
	if o := mustOrder(t, v, id); !o.SizeMatched.Equal(fixture.Dec("10")) {
		t.Errorf("after the delay: %+v, want filled", o)
	}
}
